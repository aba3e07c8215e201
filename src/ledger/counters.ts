/** Events a hook could write neither to the ledger nor to the spool (a full disk, a read-only file system). */
export const DROPPED_COUNTER = 'hook.dropped';

/** Requests the telemetry receiver refused for want of the ledger's telemetry key (docs/otel.md): 401, nothing recorded. */
export const OTEL_REFUSED_COUNTER = 'otel.refused';
