# Web search: flow sizes of the query and background traffic of a production web-search cluster,
# Alizadeh et al., "Data Center TCP (DCTCP)", SIGCOMM 2010, Fig. 4 (the workload of pFabric,
# Alizadeh et al. 2013, Fig. 4(a), and of HPCC, Li et al. 2019). Transcribed as published in the
# DCTCP authors' traffic generator (github.com/datacenter/empirical-traffic-gen, file DCTCP_CDF).
# Columns: flow size (bytes), cumulative probability. Linear between points; mean 1.71 MB.
0 0
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1
