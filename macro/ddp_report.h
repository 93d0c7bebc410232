// ddp_step's report, printed and written by rank 0: the per-rank table, the MFU and all-reduce
// summary with what the MFU divides, the job's tokens/s and scaling, and the files asked for
// (--json_out: the per-rank figures; --benchmark_out: Google Benchmark JSON, one entry per step).
#ifndef MACRO_DDP_REPORT_H_
#define MACRO_DDP_REPORT_H_

#include <string>

#include "macro/ddp_figures.h"
#include "macro/ddp_setup.h"

namespace macro {

// "BM_DdpStep/<gpt_step's case>/ranks:N/accum:A".
std::string DdpCaseName(const DdpSetup& s);

// The per-rank table (host, local rank, step, exposed and total all-reduce time, tokens/s, loss,
// peak, MFU), and the machines when they differ.
void LogRankTable(const DdpSetup& s, const RankFigures& f);
// MFU and all-reduce share across ranks, the all-reduce's bandwidth; what the MFU divides.
void LogRankSummary(const DdpSetup& s, const RankFigures& f);
// Tokens/s of the whole job, the scaling against a 1-rank run's MFU `baseline` (0: none), and
// whether the ranks' parameters agree.
void LogThroughputAndScaling(const DdpSetup& s, const RankFigures& f, double baseline);

// Rank 0 writes the files asked for (`executable` names the binary in the JSON context); false
// when one could not be written (the error is printed).
bool WriteOutputs(const DdpSetup& s, const RankFigures& f, const StepMatrix& m, const std::string& executable);

}  // namespace macro

#endif  // MACRO_DDP_REPORT_H_
