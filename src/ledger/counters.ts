/** Events a hook could write neither to the ledger nor to the spool (a full disk, a read-only file system). */
export const DROPPED_COUNTER = 'hook.dropped';
