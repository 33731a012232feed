package rigmodel
import ("testing";"fmt";"github.com/rigkit/rigkit/assets";"github.com/rigkit/rigkit/rewards/metrics")
func TestZZCls(t *testing.T){
 items,_:=ListInputs([]string{"/work/shared/data"})
 fam:=FamiliesOf([]string{"/work/shared/data"},items)
 var cs []*assets.Character
 for i,it:=range items{ if !HeldOut(fam[it.Path]) && i%9!=0 {continue}; c,err:=assets.Load(it.Path); if err==nil&&c.Rigged(){cs=append(cs,c)} }
 fmt.Println(len(cs))
 for _,p:=range []struct{res int; band float64; mj int}{{28,2.5,48},{28,4,48},{28,6,48},{40,4,48},{40,6,40}}{
  var j2j,j2b,b2b,nj float64
  for _,c:=range cs{ sk,err:=classicalSkeleton(&c.Mesh,p.res,p.band,p.mj); if err!=nil{continue}
   r:=metrics.SkeletonMetrics(c.Skeleton,sk,assets.NormalizationOf(c.Mesh)); j2j+=r.CDJ2J; j2b+=r.CDJ2B; b2b+=r.CDB2B; nj+=float64(r.PredJoints)}
  n:=float64(len(cs)); fmt.Printf("%+v j2j %.2f j2b %.2f b2b %.2f joints %.1f\n",p,100*j2j/n,100*j2b/n,100*b2b/n,nj/n)
 }
}
