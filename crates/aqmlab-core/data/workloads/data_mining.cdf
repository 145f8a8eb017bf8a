# Data mining: flow sizes in a cluster running data-mining jobs, Greenberg et al., "VL2: A
# Scalable and Flexible Data Center Network", SIGCOMM 2009, Fig. 2 (the workload of pFabric,
# Alizadeh et al. 2013, Fig. 4(b)). Transcribed as published in the DCTCP authors' traffic
# generator (github.com/datacenter/empirical-traffic-gen, file VL2_CDF). Half the flows are
# under 1.1 KB; the largest 2% carry most bytes (up to 1 GB). Mean 12.7 MB.
# Columns: flow size (bytes), cumulative probability. Linear between points.
0 0
180 0.1
216 0.2
560 0.3
900 0.4
1100 0.5
1870 0.6
3160 0.7
10000 0.8
400000 0.9
3160000 0.95
100000000 0.98
1000000000 1
