-- nDCG@k with a gain per level: ir_measures' nDCG(gains={0:0,1:1,2:3})@k, which maps the qrels'
-- levels through the gains before trec_eval's ndcg_cut; trec_eval itself has gains for ndcg
-- (ndcg.1=3,2=7) but no cutoff with them. The block is ndcg.sql's.
-- source: ir_measures nDCG(gains=...)@k (pytrec_eval provider); trec_eval m_ndcg.c, m_ndcg_cut.c; Järvelin & Kekäläinen, ACM TOIS 2002

-- measure: ndcg_cut_gains
-- aliases: ir_measures nDCG(gains=*)@k
-- syntax: named
-- params: cutoff INTEGER = 10; gains MAP = {}
-- summary: mean
-- doc: nDCG@k with a gain per level (ir_measures nDCG(gains={0:0,1:1,2:3})@k, which maps the
--      qrels' levels before trec_eval's ndcg_cut): trec_eval's ndcg with the cutoff of
--      ndcg_cut; levels the map does not list keep gain = level.
-- source: ir_measures nDCG(gains=...)@k (pytrec_eval provider); trec_eval m_ndcg.c, m_ndcg_cut.c; Järvelin & Kekäläinen, ACM TOIS 2002
CREATE OR REPLACE MACRO m_ndcg_cut_gains(cutoff, gains) AS TABLE
SELECT run_id, topic, value FROM ev_ndcg_at(gains, cutoff);
