/* A statically linked program: `occcalc trace` must refuse it with a clear
 * message (LD_PRELOAD cannot reach it). */
int main(void) { return 0; }
