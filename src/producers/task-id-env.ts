/**
 * The variable that names a wrapped run's task to its child and everything that child starts: the
 * agent's hooks (one run is one task), and a stop or the wrapper looking for the run's processes
 * wherever they went (a `setsid` grandchild is in no group of the run's, but it keeps this).
 */
export const TASK_ID_ENV = 'CONTROLROOM_TASK_ID';
