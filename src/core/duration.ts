const UNIT_MS: Record<string, number> = {s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000};

/** Parses `90s`, `15m`, `24h`, `7d`, `2w` (or a bare number of seconds) into milliseconds. */
export function parseDuration(text: string): number | null {
	const match = text.trim().match(/^(\d+(?:\.\d+)?)\s*([smhdw]?)$/);
	if (!match) return null;
	const value = Number(match[1]);
	const unit = match[2] || 's';
	const ms = value * (UNIT_MS[unit] ?? 1000);
	return Number.isFinite(ms) ? ms : null;
}
