#!/usr/bin/env bash
# Every graph app x every CUDA variant, verified against the sequential reference, on graphs no
# issue names (a self-loop alone, duplicate edges, no edges, a star, a path, two components, a
# hub at the end of the id range, one vertex, a 3-wide stencil of diameter ~20 000, a sparse
# Erdos-Renyi graph with most vertices isolated, an unpermuted R-MAT, a geometric graph with
# shortcuts, a Barabasi-Albert tree), then compute-sanitizer memcheck on the smallest five, then
# the gpu_apps test. Device side of a GPU loop: build the bundle with scripts/gpu-i10-loop.sh
# (step 1), then one device `run` with carry [".gpu-loop"]:
#   bash scripts/gpu-odd-graphs.sh            (about 2 minutes on an H200)
# Results: $OUT/t (sweep.txt: one line per app x graph with the verified count; fail.txt,
# san.txt, san-fail.txt) and $OUT/t.tar.gz.
export CUDA_MODULE_LOADING=EAGER
O=.gpu-loop/occupant
T=$OUT/t; mkdir -p $T/g
O=$(realpath $O)
cd $T/g
printf '0 0\n' > selfloop1.txt
printf '0 1\n0 1\n1 0\n1 1\n2 3\n' > dup.txt
printf '%%%%MatrixMarket matrix coordinate pattern general\n5 5 0\n' > empty5.mtx
awk 'BEGIN{for(i=1;i<3000;i++) print 0, i}' > star.txt
awk 'BEGIN{for(i=0;i<5000;i++) print i, i+1}' > path.txt
awk 'BEGIN{srand(3); for(i=0;i<100;i++) print i, (i+1)%100; for(i=200;i<300;i++) print i, 200+int(rand()*100)}' > twocomp.txt
awk 'BEGIN{n=4000; for(i=0;i<n-1;i++){print i, n-1; print n-1, i}}' > hubend.txt
cd - >/dev/null
nvidia-smi --query-gpu=name,driver_version --format=csv > $T/nvidia-smi.txt
files="selfloop1.txt dup.txt empty5.mtx star.txt path.txt twocomp.txt hubend.txt"
specs="grid:1x1 stencil:3x20000 er:n=50000,m=20000 rmat:scale=16,permute=0 geo:n=100000,deg=3,shortcuts=10 ba:n=200000,m=1"
apps="bfs sssp sssp-worklist color mis bc pagerank cc"
t0=$(date +%s)
one() { local app=$1; shift; local name=$1; shift
  timeout 60 $O run $app "$@" --backend cuda --variant all --verify > $T/run.log 2>&1; local rc=$?
  echo "$app $name rc=$rc $(grep -c verified $T/run.log) verified" >> $T/sweep.txt
  [ $rc -ne 0 ] && { echo "---- $app $name" >> $T/fail.txt; tail -20 $T/run.log >> $T/fail.txt; }
}
for f in $files; do for a in $apps; do one $a $f --graph $T/g/$f; done; done
for s in $specs; do for a in $apps; do one $a $s --gen $s; done; done
echo "sweep $(( $(date +%s) - t0 )) s" >> $T/sweep.txt
t1=$(date +%s)
for f in selfloop1.txt dup.txt empty5.mtx star.txt twocomp.txt; do for a in $apps; do
  [ $(( $(date +%s) - t0 )) -gt 420 ] && { echo "sanitizer: out of time at $a $f" >> $T/san.txt; break 2; }
  timeout 60 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 $O run $a --graph $T/g/$f --backend cuda --variant all --verify > $T/san.log 2>&1; rc=$?
  echo "$a $f rc=$rc $(grep -E 'ERROR SUMMARY' $T/san.log | tail -1)" >> $T/san.txt
  [ $rc -ne 0 ] && tail -30 $T/san.log >> $T/san-fail.txt
done; done
echo "sanitizer $(( $(date +%s) - t1 )) s" >> $T/san.txt
timeout 100 .gpu-loop/test-occupant-apps-gpu_apps --test-threads=1 > $T/gpu_apps.log 2>&1; echo "gpu_apps rc=$?" >> $T/sweep.txt
tar czf $OUT/t.tar.gz -C $OUT t
