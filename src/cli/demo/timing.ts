/** Silence after which the demo board calls a task stalled (the default is 600 s; a demo cannot wait that long). */
export const DEMO_STALL_SECONDS = 20;
/** How often the demo board runs its reconciler pass, so the crash shows as lost within seconds. */
export const DEMO_RECONCILE_MS = 2000;
