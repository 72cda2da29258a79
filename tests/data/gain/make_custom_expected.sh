#!/bin/bash
# Regenerates custom.expected with trec_eval 9.0.8 (binary reports "9.0.7").
set -e
cd "$(dirname "$0")"
TE=${TE:-/tmp/bin/trec_eval9}
emit() { local files="$1"; shift; echo "## $files $*"; $TE -q "$@" $files; }
{
emit "tiny.qrels tiny.run" -m G -m ndcg_rel -m Rndcg
emit "tiny.qrels tiny.run" -m G.1=3,2=9 -m ndcg_rel.1=2 -m Rndcg.3=1
emit "tiny.qrels tiny.run" -m G.-1=2,-2=1 -m ndcg_rel.-2=3 -m Rndcg.-1=1,0=-1
emit "tiny.qrels tiny.run" -m G.2=4.5,1=4.2 -m ndcg_rel.2=4.5,1=4.2 -m Rndcg.2=4.5,1=4.2
emit "tiny.qrels tiny.run" -m Rndcg.1=0,2=0,3=0 -m ndcg_rel.0=-3,1=0,2=0,3=0,-1=1.5
emit "tiny.qrels tiny.run" -l2 -M4 -m G -m ndcg_rel -m Rndcg
emit "tiny.qrels tiny.run" -J -m G.-2=5 -m ndcg_rel -m Rndcg.0=1
emit "tiny.qrels tiny.run" -c -m G.0=0.5 -m ndcg_rel.1=0.5 -m Rndcg.1=0.5
emit "qrels.rel_level results.test" -m G.1=3,2=9 -m ndcg_rel.1=2,4=10 -m Rndcg.2=4.5,1=4.2
emit "qrels.rel_level results.test" -l3 -m G.-2=1 -m ndcg_rel.0=1 -m Rndcg.3=1,4=1
emit "qrels.rel_level results.test" -J -M200 -m G.4=2 -m ndcg_rel.-2=2 -m Rndcg
} > custom.expected
