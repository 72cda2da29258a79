"""What the tests share, in one place: paths, score matrices, the golden-test comparison with
trec_eval, the user-model harness, small campaigns and logs. The independent oracles the
metrics are checked against are tests/oracles/."""
