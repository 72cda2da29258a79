"""Past one machine: the metric SQL of the warehouse on Apache Spark.

The measures are DuckDB table macros (sql/metrics, sql/context.sql, irwarehouse.store.macros). Spark
has no macros, so:

* `inline`    expands the macros of a query (irw_<measure>(...), m_<name>(...),
               ev_make_<relation>(...), scalar helpers) into one plain SELECT, each call replaced
               by the macro's body with its arguments bound (sqlglot syntax trees);
* `dialect`   turns that SELECT into Spark SQL: sqlglot's DuckDB -> Spark transpiler plus the
               rules and portable rewrites (sql/portable/*.sql) for the DuckDB-only constructs
               (docs/sql_portability.md lists every one); a construct without a rule makes the
               measure not portable, with the reason, and `--engine spark` refuses it;
* `export`    writes a campaign's tables as Parquet, partitioned for parallel reads;
* `engine`    runs the transpiled SQL in a SparkSession (pyspark, an optional extra) and brings
               the per-topic values back as the EvalResult every `irw eval` layout prints.

Only `engine` imports pyspark; the rest needs sqlglot and duckdb alone.
"""
