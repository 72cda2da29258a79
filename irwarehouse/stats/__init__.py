"""Significance testing over a topics x runs score matrix (numpy only).

Resampling tests follow Sakai's papers (Sakai, PROMISE 2014, section 4, Sakai, IPSJ JIP 2013,
section 4, Sakai, IPSJ TOD 2007, section 4.3); classical tests reproduce scipy.stats' p-values. See
docs/stats.md.
"""

from .classical import anova_two_way, friedman, paired_t, sign_test, wilcoxon_signed_rank
from .compare import Comparison, PairResult, compare_all
from .correction import adjust, benjamini_hochberg, bonferroni, familywise_error, holm
from .delta import DeltaResult, bootstrap_delta, smallest_significant_delta, tukey_delta
from .resampling import (
    PairwiseResampling,
    achieved_significance,
    default_index_sampler,
    default_row_permuter,
    default_sign_sampler,
    paired_bootstrap,
    paired_bootstrap_all_pairs,
    randomisation_all_pairs,
    randomisation_test,
    tukey_hsd,
    unpaired_bootstrap,
)
from .results import AnovaResult, AnovaRow, ConfidenceInterval, TestResult, TukeyHSDResult

__all__ = [
    "AnovaResult",
    "AnovaRow",
    "Comparison",
    "ConfidenceInterval",
    "DeltaResult",
    "PairResult",
    "PairwiseResampling",
    "TestResult",
    "TukeyHSDResult",
    "achieved_significance",
    "adjust",
    "anova_two_way",
    "benjamini_hochberg",
    "bonferroni",
    "bootstrap_delta",
    "compare_all",
    "default_index_sampler",
    "default_row_permuter",
    "default_sign_sampler",
    "familywise_error",
    "friedman",
    "holm",
    "paired_bootstrap",
    "paired_bootstrap_all_pairs",
    "paired_t",
    "randomisation_all_pairs",
    "randomisation_test",
    "sign_test",
    "smallest_significant_delta",
    "tukey_delta",
    "tukey_hsd",
    "unpaired_bootstrap",
    "wilcoxon_signed_rank",
]
