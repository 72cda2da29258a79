"""The file `spark-submit` runs to start irw on a cluster (spark-submit takes a .py file, not a
console script such as `irw`):

    PYSPARK_PYTHON=$(which python) spark-submit --master spark://head:7077 \\
        "$(python -m irwarehouse.spark_submit)" eval --engine spark --data /shared/robust03 ...

Run as a module without arguments, it prints its own path; run by spark-submit, it is `irw`
with spark-submit's arguments, and the SparkSession takes spark-submit's --master and --conf
(irwarehouse.spark.engine.spark_session). docs/scale.md, "A real cluster"."""

import os
import sys

if __name__ == "__main__":
    if len(sys.argv) == 1 and "PYSPARK_GATEWAY_PORT" not in os.environ:
        print(os.path.abspath(__file__))
    else:
        from irwarehouse.entry import main
        main()
