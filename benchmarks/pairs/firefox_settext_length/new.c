/* Mozilla nsGenericDOMDataNode::SetTextInternal (CVE-2010-1196), the length
   computation only, adapted to C. After the fix: lengths above 2^29 (or
   negative ones, which are huge as unsigned) are refused. */
typedef unsigned int nsresult;
#define NS_OK 0u
#define NS_ERROR_DOM_DOMSTRING_SIZE_ERR 0x80530001u

nsresult SetTextInternal(int textLength, int aCount, int aLength, int aOffset)
{
    int newLength = textLength - aCount + aLength;
    long end;
    if ((unsigned)newLength > (1 << 29))
        return NS_ERROR_DOM_DOMSTRING_SIZE_ERR;
    /* the copy of aLength units to offset aOffset would happen here */
    end = (long)aOffset + aLength;
    (void)end;
    return NS_OK;
}
