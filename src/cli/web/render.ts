import {layoutRow} from '../../core/board/row-layout.ts';
import type {ScreenView} from '../../core/board/screen.ts';
import type {TableView} from '../../core/board/table-layout.ts';
import {laneTone, type Tone} from '../../core/board/tone.ts';

// The web board draws the board's view models (ScreenView, src/core/board/screen-view.ts) as HTML:
// the same panels the terminal draws, line for line, with no rule of its own (docs/web.md). Every
// string reaches the page through `html`, which escapes it: agents write titles, arguments and
// reasons, and none of it may become markup.

const ESCAPES: Readonly<Record<string, string>> = {'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'};

/** Text made safe for an HTML element or a quoted attribute. */
export function html(text: string): string {
	return text.replace(/[&<>"']/g, char => ESCAPES[char] ?? char);
}

/** One line of a panel, in its tone (a CSS class), optionally bold or dim. */
function line(text: string, tone: Tone | null = null, extra = ''): string {
	const classes = [tone === null ? '' : `t-${tone}`, extra].filter(Boolean).join(' ');
	return `<div class="l${classes === '' ? '' : ` ${classes}`}">${html(text) || ' '}</div>`;
}

/** A panel: a section with its name, so the page script and the tests find it. */
function panel(name: string, body: string): string {
	return `<section class="panel" data-panel="${html(name)}">${body}</section>`;
}

/** The link a task row opens: its drill-down (timeline and why). */
export function taskHref(taskId: string): string {
	return `/task/${encodeURIComponent(taskId)}`;
}

function lanesHtml(screen: ScreenView): string {
	const {lanes} = screen;
	const parts = [line(lanes.headings, null, 'b dim')];
	if (lanes.above !== null) parts.push(line(`  ${lanes.above}`, null, 'dim'));
	for (const entry of lanes.lines) {
		if (entry.kind === 'lane') {
			parts.push(line(`${entry.title} (${entry.count})${entry.count === 0 ? '  none' : ''}`, laneTone(entry.lane), 'b'));
			continue;
		}
		const {row} = entry;
		const layout = layoutRow(row, lanes.columns);
		const marker = row.isUnseen ? '● ' : '  ';
		parts.push(
			`<a class="l row${row.isUnseen ? ' b' : ''}" data-task="${html(row.id)}" href="${html(taskHref(row.id))}">` +
				`<span class="t-info">${marker}</span>${html(layout.before)}<span class="t-${row.tone}">${html(layout.status)}</span>${html(layout.after)}</a>`,
		);
	}
	if (lanes.below !== null) parts.push(line(`  ${lanes.below}`, null, 'dim'));
	return panel('lanes', parts.join(''));
}

function queueHtml(screen: ScreenView): string {
	const {queue} = screen;
	const parts = [line(`NEEDS YOU (${queue.total})`, queue.total > 0 ? 'warn' : 'muted', 'b')];
	if (queue.total === 0) parts.push(line('   nothing needs you', null, 'dim'));
	for (const entry of queue.lines)
		parts.push(
			entry.kind === 'heading'
				? line(` ${entry.text}`, null, 'b')
				: line(`   ${entry.text}`, null, entry.kind === 'more' ? 'dim' : ''),
		);
	return panel('needs-you', parts.join(''));
}

function reviewsHtml(screen: ScreenView): string {
	const {reviews} = screen;
	const parts = [line(`REVIEWS (${reviews.total})`, null, reviews.total === 0 ? 'b dim' : 'b')];
	if (reviews.total === 0) parts.push(line('   no verdicts yet', null, 'dim'));
	for (const row of reviews.rows) parts.push(line(`   ${row.text}`, row.tone));
	return panel('reviews', parts.join(''));
}

function effectsHtml(screen: ScreenView): string {
	const {effects} = screen;
	const title = `HELD EFFECTS (${effects.heldCount})`;
	const parts = [line(title, effects.heldCount > 0 ? 'warn' : 'muted', 'b')];
	if (effects.lines.length === 0) parts.push(line('   nothing held', null, 'dim'));
	for (const entry of effects.lines) {
		if (entry.kind === 'order') parts.push(line(` ${entry.text}`, null, 'b'));
		else if (entry.kind === 'args') parts.push(line(`      ${entry.text}`, null, 'dim'));
		else if (entry.kind === 'effect') parts.push(line(`  ${entry.text}`));
		else parts.push(line(`  ${entry.text}`, entry.tone));
	}
	return panel('held-effects', parts.join(''));
}

function decisionsHtml(screen: ScreenView): string {
	const {decisions} = screen;
	if (decisions === null) return '';
	const parts = [line(`DECISIONS (${decisions.count})`, 'warn', 'b')];
	for (const entry of decisions.lines)
		parts.push(
			`<a class="l decision" data-decision="${html(entry.id)}" href="/decision/${encodeURIComponent(entry.id)}">${html(`   ${entry.text}`)}</a>`,
		);
	return panel('decisions', parts.join(''));
}

function blocksHtml(screen: ScreenView): string {
	return screen.blocks
		.map(block =>
			panel(block.name, [line(block.title, 'info', 'b'), ...block.lines.map(entry => line(entry.text, entry.tone))].join('')),
		)
		.join('');
}

function tableHtml(title: string, table: TableView | null): string {
	if (table === null) return '';
	const head = `<tr>${table.columns.map(column => `<th>${html(column.heading)}</th>`).join('')}</tr>`;
	const rows = table.rows.map(row => `<tr>${row.map(cell => `<td>${html(cell)}</td>`).join('')}</tr>`).join('');
	const more = table.more > 0 ? line(`  +${table.more} more`, null, 'dim') : '';
	return `${line(`${title}:`, null, 'b')}<table>${head}${rows}</table>${more}`;
}

function timelineHtml(timeline: NonNullable<ScreenView['timeline']>): string {
	const {row} = timeline;
	const parts = [
		row
			? `<div class="l"><b>${html(`TIMELINE ${row.id} `)}</b>${html(`“${row.title}” · ${row.source} · `)}<span class="t-${row.tone}">${html(row.status)}</span>${html(` · ${row.idle}`)}</div>`
			: line(timeline.order ? `TIMELINE ${timeline.order}` : 'TIMELINE (task not found)', null, 'b'),
	];
	if (row)
		parts.push(
			line(
				`  age ${row.age} · ${row.progress} · tokens ${row.tokens} · cost ${row.cost}${row.burn ? ` · ${row.burn}` : ''} · pid ${row.pid}`,
				null,
				'dim',
			),
		);
	parts.push(line(`contract: ${timeline.contract.length === 0 ? 'none recorded' : timeline.contract.join(' · ')}`));
	parts.push(line(`evidence: ${timeline.evidence.length === 0 ? 'none recorded' : timeline.evidence.join(' · ')}`));
	if (timeline.why) parts.push(`<div class="l why"><b>why: </b>${html(timeline.why)}</div>`);
	parts.push(tableHtml('track record', timeline.record));
	parts.push(tableHtml('spend by model', timeline.spend.byModel));
	parts.push(tableHtml('spend by helper', timeline.spend.byHelper));
	parts.push(line(`lines ${timeline.start + 1}–${timeline.start + timeline.lines.length} of ${timeline.total}`, null, 'dim'));
	for (const entry of timeline.lines) parts.push(line(`  ${entry.time}  ${entry.text}`, null, entry.isFolded ? 'dim' : ''));
	return panel('timeline', parts.join(''));
}

function helpHtml(help: NonNullable<ScreenView['help']>): string {
	return panel('help', help.tables.map(table => tableHtml('keys', table)).join(''));
}

/** The header: counts and sort order, the alerts under it. */
function headerHtml(screen: ScreenView): string {
	const burn = screen.header.burn ? ` · ${screen.header.burn}` : '';
	const parts = [
		`<header><span><b class="t-info">controlroom</b> ${screen.ledger === null ? '' : `<span class="dim">${html(screen.ledger)}</span> `}${html(screen.header.counts)}<span class="dim">${html(burn)}</span></span> <span class="t-info">${html(screen.header.sort)}</span></header>`,
	];
	for (const alert of screen.alerts) parts.push(line(`⚠ ${alert}`, 'error', 'b'));
	return parts.join('');
}

/**
 * The board's body as HTML: what the terminal draws for the same view, panel by panel. The page's
 * first response carries it, and each live update replaces it whole.
 */
export function boardHtml(screen: ScreenView): string {
	let body: string;
	if (screen.timeline) body = timelineHtml(screen.timeline);
	else if (screen.help) body = helpHtml(screen.help);
	else
		body = [
			lanesHtml(screen),
			`<div class="band">${queueHtml(screen)}${reviewsHtml(screen)}${effectsHtml(screen)}</div>`,
			decisionsHtml(screen),
			blocksHtml(screen),
		].join('');
	return `${headerHtml(screen)}<main>${body}</main>`;
}

/** A question shown whole (the board's drill-in view of it): every line of the call, escaped. */
export function questionHtml(screen: ScreenView): string {
	const {question} = screen;
	if (question === null) return panel('question', line('no such question open', 'muted'));
	return panel('question', [line(`QUESTION ${question.id}`, 'warn', 'b'), ...question.lines.map(text => line(text))].join(''));
}
