# Independent Yuen reference: t CDF from the regularized incomplete beta (continued fraction).
import math
def betacf(a,b,x):
    MAXIT,EPS,FPMIN=300,3e-16,1e-300
    qab,qap,qam=a+b,a+1,a-1
    c,d=1.0,1-qab*x/qap
    d=1/(d if abs(d)>FPMIN else FPMIN); h=d
    for m in range(1,MAXIT+1):
        m2=2*m; aa=m*(b-m)*x/((qam+m2)*(a+m2))
        d=1+aa*d; d=FPMIN if abs(d)<FPMIN else d
        c=1+aa/c; c=FPMIN if abs(c)<FPMIN else c
        d=1/d; h*=d*c
        aa=-(a+m)*(qab+m)*x/((a+m2)*(qap+m2))
        d=1+aa*d; d=FPMIN if abs(d)<FPMIN else d
        c=1+aa/c; c=FPMIN if abs(c)<FPMIN else c
        d=1/d; de=d*c; h*=de
        if abs(de-1)<EPS: break
    return h
def ibeta(a,b,x):
    if x<=0: return 0.0
    if x>=1: return 1.0
    bt=math.exp(math.lgamma(a+b)-math.lgamma(a)-math.lgamma(b)+a*math.log(x)+b*math.log(1-x))
    if x<(a+1)/(a+b+2): return bt*betacf(a,b,x)/a
    return 1-bt*betacf(b,a,1-x)/b
def t_two_sided_p(t,df): return ibeta(df/2,0.5,df/(df+t*t))
def t_quantile(p,df):  # upper quantile by bisection: P(T>q)=1-p
    lo,hi=0.0,1000.0
    for _ in range(200):
        m=(lo+hi)/2
        if t_two_sided_p(m,df)/2 > 1-p: lo=m
        else: hi=m
    return (lo+hi)/2
def side(x,trim):
    v=sorted(math.log(t) for t in x); n=len(v); g=int(math.floor(trim*n)); h=n-2*g
    tm=sum(v[g:n-g])/h
    w=[min(max(t,v[g]),v[n-g-1]) for t in v]; wm=sum(w)/n
    sw2=sum((t-wm)**2 for t in w)/(n-1)
    return tm,(n-1)*sw2/(h*(h-1)),h
def yuen(a,b,trim=0.2,alpha=0.05):
    ta,da,ha=side(a,trim); tb,db,hb=side(b,trim)
    diff=tb-ta; se=math.sqrt(da+db)
    df=(da+db)**2/(da**2/(ha-1)+db**2/(hb-1))
    t=diff/se; p=t_two_sided_p(abs(t),df); q=t_quantile(1-alpha/2,df)
    return t,df,p,100*math.expm1(diff-q*se),100*math.expm1(diff+q*se)
a=[100,102,98,101,99,130]; b=[80,81,79,82.5,78,60]
print("%.10g %.10g %.10g %.10g %.10g"%yuen(a,b))
a2=[10.2,9.8,10.5,10.1,9.9,10.0,10.3,25.0,9.7,10.4]; b2=[10.6,10.9,10.4,11.0,10.7,3.0,10.8,10.5,11.1,10.6]
print("%.10g %.10g %.10g %.10g %.10g"%yuen(a2,b2))
