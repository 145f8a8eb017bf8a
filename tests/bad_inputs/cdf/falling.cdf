# sizes fall
1000 0.2
500 0.6
2000 1
