/** The need kind a worker gives when what it was handed lacks something it needs (docs/stats.md). */
export const MISSING_INFO_KIND = 'missing_info';
/** The kinds a need may be given by whoever raises it (`raise_need`, `controlroom need --kind`): without one it is an ordinary need. */
export const ASKED_NEED_KINDS = [MISSING_INFO_KIND] as const;
export type AskedNeedKind = (typeof ASKED_NEED_KINDS)[number];
