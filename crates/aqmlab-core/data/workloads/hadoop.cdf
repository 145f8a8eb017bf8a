# Hadoop: flow sizes in a Facebook Hadoop cluster, Roy et al., "Inside the Social Network's
# (Datacenter) Network", SIGCOMM 2015 (the FB_Hadoop workload of HPCC, Li et al., SIGCOMM 2019).
# Transcribed as published with HPCC (github.com/alibaba-edu/High-Precision-Congestion-Control,
# traffic_gen/FbHdp_distribution.txt), its percentages written here as probabilities.
# Columns: flow size (bytes), cumulative probability. Linear between points.
0 0
100 0.01
200 0.02
300 0.05
350 0.15
400 0.2
500 0.3
600 0.4
700 0.5
1000 0.6
2000 0.67
7000 0.7
30000 0.72
50000 0.82
80000 0.87
120000 0.9
300000 0.95
1000000 0.975
2000000 0.99
10000000 1
