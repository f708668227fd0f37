#!/bin/bash
# The shipped model (this tree) against another model file in a copy of the tree, side by side on
# a machine of 16 cores: honesty clean and sets, lab laws, units-and-noise (raw outputs in $OUT).
# Usage: OUT=folder bash benchmarks/device_powc_model.sh COMMIT MODEL.npz
# (the powc+erf model: python examples/train_default_model.py --extra powc erf --output MODEL.npz)
set -u
ROOT=$PWD
C=${1:-unknown}
MODEL=${2:-.bench/default_powc.npz}
export PYTHONUNBUFFERED=1 OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 NUMBA_NUM_THREADS=1
A=/tmp/after; mkdir -p $A; cp -r superpos benchmarks datasets $A/; cp $MODEL $A/superpos/models/default.npz
t0=$(date +%s)
warm() { (cd $1 && PYTHONPATH=$1 timeout 200 python3 -c "
import numpy as np, warnings; warnings.simplefilter('ignore')
from superpos.symreg.pipeline import find_formula
X=np.random.default_rng(0).uniform(1,3,(200,3)); f=find_formula(X, X[:,0]*np.sin(X[:,1])+X[:,2]**2, None, random_state=0); print('$1', f.expr)"); }
warm $ROOT & warm $A & wait
echo "warm $(( $(date +%s) - t0 )) s"
run() {  # tree tag script args...
  local tree=$1 tag=$2 script=$3; shift 3
  (cd $tree && BENCH_COMMIT=$C PYTHONPATH=$tree timeout 480 python3 $ROOT/benchmarks/record.py $OUT/$tag.txt -- python3 benchmarks/$script "$@" > /dev/null 2>&1; echo "$tag done $(( $(date +%s) - t0 )) s")
}
for side in before after; do
  if [ $side = before ]; then T=$ROOT; else T=$A; fi
  run $T ${side}_clean honesty.py --sets hard feynman noise real --samples 5 --jobs 3 &
  run $T ${side}_sets honesty.py --sets affine composed separable separable_controls --samples 1 --jobs 2 &
  run $T ${side}_lab lab_laws.py --conditions plain noise=0.01 --jobs 1 &
  run $T ${side}_units units_noise.py --conditions plain units noise=0.01 --jobs 2 &
done
wait
echo "all $(( $(date +%s) - t0 )) s"
