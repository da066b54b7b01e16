"""What the tests and the benchmarks share and the product never runs: a throwaway PostgreSQL
cluster (pg_cluster.py). The benchmarks import nothing from tests/, and the tests nothing from
bench/."""
