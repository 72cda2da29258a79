#!/bin/sh
# How the expected outputs here were made: trec_eval 9.0.8 (tag v9.0.8, d95ca64e; prints
# "9.0.7") and 10.0 (main f4253652; prints "10.0-rc3"), built from usnistgov/trec_eval.
# Usage: TE9=/path/trec_eval9 TE10=/path/trec_eval10 sh make_expected.sh
set -e
cd "$(dirname "$0")"
for v in 9 10; do
  te=$(eval echo "\$TE$v")
  mkdir -p v$v
  for opts in "-c" "-c -l2" "-c -J" "-c -M0" "-c -M3" "-J" "-M0" "-l2 -J"; do
    name=out.edge$(echo "$opts" | tr -d ' ')
    if [ "$v" = 10 ] && [ "${opts#-c}" = "$opts" ]; then
      # 10.0 without -c stops at a judged topic the run lacks (topic 3): use the run's topics
      :  # qrels.edge.no3 = qrels.edge without topic 3
      "$te" -q -m all_trec $opts qrels.edge.no3 run.edge > v$v/$name
    else
      "$te" -q -m all_trec $opts qrels.edge run.edge > v$v/$name
    fi
  done
done

# utility with coefficients of its own, on a judged topic the run lacks (3)
for v in 9 10; do
  te=$(eval echo "\$TE$v")
  for opts in "-c" "-c -J"; do
    "$te" -q -m utility.1,-2,3,-4 $opts qrels.edge run.edge \
      > v$v/out.edge.utility$(echo "$opts" | tr -d ' ')
  done
done
# rbp_resid with a parameter (10.0 only), on a judged topic the run lacks (3)
for opts in "-c" "-c -J"; do
  "$TE10" -q -m rbp_resid.p=0.8 $opts qrels.edge run.edge \
    > v10/out.edge.rbp_resid$(echo "$opts" | tr -d ' ')
done
