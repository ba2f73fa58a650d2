/* Limit x to the range [lo, lo + 100]. */
int window(int x,int lo) {
	long hi=(long)lo+100;
	if (x<lo) return lo;
	if (x>hi)
	    return (int) hi;
	return x;
}
