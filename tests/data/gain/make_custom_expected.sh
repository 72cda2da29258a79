#!/bin/bash
# Regenerates custom.expected (trec_eval 9.0.8, whose binary reports "9.0.7") and custom10.expected
# (trec_eval 10.0): TE9=/path/to/trec_eval9 TE10=/path/to/trec_eval10 ./make_custom_expected.sh
set -e
cd "$(dirname "$0")"
TE9=${TE9:-/tmp/bin/trec_eval9}
TE10=${TE10:-/tmp/bin/trec_eval10}
emit() { local files="$1"; shift; echo "## $files $*"; $TE -q "$@" $files; }
TE=$TE9
{
emit "tiny.qrels tiny.run" -m G -m ndcg_rel -m Rndcg
emit "tiny.qrels tiny.run" -m G.1=3,2=9 -m ndcg_rel.1=2 -m Rndcg.3=1
emit "tiny.qrels tiny.run" -m G.-1=2,-2=1 -m ndcg_rel.-2=3 -m Rndcg.-1=1,0=-1
emit "tiny.qrels tiny.run" -m G.2=4.5,1=4.2 -m ndcg_rel.2=4.5,1=4.2 -m Rndcg.2=4.5,1=4.2
emit "tiny.qrels tiny.run" -m Rndcg.1=0,2=0,3=0 -m ndcg_rel.0=-3,1=0,2=0,3=0,-1=1.5
emit "tiny.qrels tiny.run" -l2 -M4 -m G -m ndcg_rel -m Rndcg
emit "tiny.qrels tiny.run" -J -m G.-2=5 -m ndcg_rel -m Rndcg.0=1
emit "tiny.qrels tiny.run" -c -m G.0=0.5 -m ndcg_rel.1=0.5 -m Rndcg.1=0.5
emit "tiny.qrels tiny_no_t4.run" -c -m G.-1=2 -m ndcg_rel.-1=2 -m Rndcg.-1=1
emit "qrels.rel_level results.test" -m G.1=3,2=9 -m ndcg_rel.1=2,4=10 -m Rndcg.2=4.5,1=4.2
emit "qrels.rel_level results.test" -l3 -m G.-2=1 -m ndcg_rel.0=1 -m Rndcg.3=1,4=1
emit "qrels.rel_level results.test" -J -M200 -m G.4=2 -m ndcg_rel.-2=2 -m Rndcg
} > custom.expected
TE=$TE10
{
# 10.0 -c scores a topic missing from the run as the list ['ceci_nest_pas_un_docno'] (not in the qrels)
emit "tiny.qrels tiny_no_t4.run" -c -m G.-1=2 -m ndcg_rel.-1=2 -m Rndcg.-1=1
emit "tiny.qrels tiny_no_t4.run" -c -m G -m ndcg_rel -m Rndcg
emit "tiny.qrels tiny.run" -m G.2=4.5,1=4.2 -m ndcg_rel.-2=3 -m Rndcg.-1=1,0=-1
} > custom10.expected
