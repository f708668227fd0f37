#!/bin/bash
# The seven rerunnable examples of ../shared/data/examples (README there: each should come back
# as its law), one `superpos predict` call each, with its wall time.
#   bash benchmarks/examples.sh [path/to/superpos] [examples folder]
SP=${1:-.venv/bin/superpos}
DIR=${2:-../shared/data/examples}
for f in sum_cos_exp sum_product_sin sum_cos_product sum_of_ratios sum_sin_square gompertz logistic; do
  s=$(date +%s.%N)
  out=$("$SP" predict "$DIR/$f.csv" --quiet 2>&1 | head -3 | tr '\n' ' ')
  e=$(date +%s.%N)
  printf "%-16s %6.2f s  %s\n" "$f" "$(echo "$e - $s" | bc)" "$out"
done
