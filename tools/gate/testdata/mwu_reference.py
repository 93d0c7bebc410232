# Reference values for tools/stats_test.cc: Mann-Whitney U by brute force (exact) and the
# textbook normal approximation (tie + continuity corrections), no scipy needed. Run: python3 mwu_reference.py
import itertools, math
def ranks(vals):
    s = sorted(range(len(vals)), key=lambda i: vals[i]); r=[0]*len(vals); i=0
    while i < len(s):
        j=i
        while j < len(s) and vals[s[j]]==vals[s[i]]: j+=1
        for k in range(i,j): r[s[k]]=(i+1+j)/2
        i=j
    return r
def u1(x,y):
    r=ranks(x+y); return sum(r[:len(x)])-len(x)*(len(x)+1)/2
def exact(x,y):
    pooled=x+y; n1=len(x); U=u1(x,y); ge=le=tot=0
    for c in itertools.combinations(range(len(pooled)), n1):
        xs=[pooled[i] for i in c]; ys=[pooled[i] for i in range(len(pooled)) if i not in c]
        u=u1(xs,ys); tot+=1; ge+= u>=U; le+= u<=U
    return U, ge/tot, le/tot, min(1,2*min(ge,le)/tot)
def normal(x,y):
    n1,n2=len(x),len(y); n=n1+n2; U=u1(x,y); pooled=x+y
    from collections import Counter
    t=sum(c**3-c for c in Counter(pooled).values())
    var=n1*n2/12*((n+1)-t/(n*(n-1))); sd=math.sqrt(var); mu=n1*n2/2
    sf=lambda z: 0.5*math.erfc(z/math.sqrt(2))
    g=sf((U-mu-0.5)/sd); l=sf((mu-U-0.5)/sd); Um=max(U,n1*n2-U); two=min(1,2*sf((Um-mu-0.5)/sd))
    return U,g,l,two
m=[19,22,16,29,24]; f=[20,11,17,12]
print("scipy doc exact", exact(m,f)); print("scipy doc normal", normal(m,f))
a=[1.0,2.0,2.0,3.0,4.0,5.0]; b=[2.0,3.0,3.0,6.0,7.0,8.0,9.0]
print("ties normal", repr(normal(a,b)))
x=[10.1,10.3,9.9,10.0,10.2,10.4,10.05,10.15,10.25]; y=[x_*1.25 for x_ in x]
print("9v9 shifted exact", exact(y,x))
x2=[1.0,3,5,7,9,11,13,15,17]; y2=[2.0,4,6,8,10,12,14,16,18]
print("9v9 interleaved", exact(x2,y2))
print("normal 9v9 interleaved", normal(x2,y2))
print(math.comb(18,9))
