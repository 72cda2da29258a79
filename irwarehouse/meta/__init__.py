"""Meta-evaluation: which metric to trust (discriminative power, swap method, rank correlation,
concordance, pools and leave-one-out). See docs/meta.md."""
