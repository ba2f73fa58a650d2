/* Mozilla nsGenericDOMDataNode::SetTextInternal (CVE-2010-1196), the length
   computation only, adapted to C. Before the fix: no check on the new
   length, so an overflowing length reaches the copy. */
typedef unsigned int nsresult;
#define NS_OK 0u
#define NS_ERROR_DOM_DOMSTRING_SIZE_ERR 0x80530001u

nsresult SetTextInternal(int textLength, int aCount, int aLength, int aOffset)
{
    int newLength = textLength - aCount + aLength;
    long end;

    /* the copy of aLength units to offset aOffset would happen here */
    end = (long)aOffset + aLength;
    (void)end;
    return NS_OK;
}
