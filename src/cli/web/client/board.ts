// The web board's script (docs/web.md): the server draws every panel; this keeps the page current
// from the event stream, asks for the board at the page's own width, and gives the board's keys
// where a keyboard exists. It builds no markup from data: what it puts in the page is the
// server's HTML, in which every agent-written string is already escaped.

type Keys = Readonly<Record<'down' | 'up' | 'open' | 'back' | 'help', readonly string[]>>;

const board = document.getElementById('board') as HTMLElement;
const keys = JSON.parse(document.body.dataset['keys'] ?? '{}') as Keys;

/** Columns of the board's font that fit the page. */
function columns(): number {
	const probe = document.createElement('span');
	probe.className = 'l';
	probe.style.cssText = 'position:absolute;visibility:hidden';
	probe.textContent = 'M'.repeat(50);
	board.appendChild(probe);
	const width = probe.getBoundingClientRect().width / 50;
	probe.remove();
	const room = board.clientWidth - 20;
	return Math.max(40, Math.min(240, Math.floor(room / (width || 8))));
}

let source: EventSource | null = null;
let cols = columns();
function follow(): void {
	source?.close();
	const url = new URL(document.body.dataset['stream'] ?? '/events', location.href);
	url.searchParams.set('cols', String(cols));
	source = new EventSource(url);
	source.addEventListener('board', event => {
		const selected = board.querySelector<HTMLElement>('a.row.sel')?.dataset['task'];
		board.innerHTML = (event as MessageEvent<string>).data;
		if (selected !== undefined) board.querySelector(`a.row[data-task="${CSS.escape(selected)}"]`)?.classList.add('sel');
		document.body.dataset['updated'] = String(Date.now());
	});
	// The session was revoked or expired: the page shows the sign-in page instead of retrying.
	source.addEventListener('signed-out', () => {
		source?.close();
		location.reload();
	});
}
follow();
let resizing: number | undefined;
addEventListener('resize', () => {
	clearTimeout(resizing);
	resizing = window.setTimeout(() => {
		const now = columns();
		if (now !== cols) {
			cols = now;
			follow();
		}
	}, 200);
});

/** The name the board's key table uses for a key press. */
function keyName(event: KeyboardEvent): string {
	const named: Record<string, string> = {ArrowDown: 'down', ArrowUp: 'up', Enter: 'return', Escape: 'escape'};
	return named[event.key] ?? event.key;
}

function move(delta: number): void {
	const rows = [...board.querySelectorAll<HTMLAnchorElement>('a.row')];
	if (rows.length === 0) return scrollBy(0, delta * 40);
	const at = rows.findIndex(row => row.classList.contains('sel'));
	const next = rows[Math.max(0, Math.min(rows.length - 1, at + delta))];
	rows[at]?.classList.remove('sel');
	next?.classList.add('sel');
	next?.scrollIntoView({block: 'nearest'});
}

addEventListener('keydown', event => {
	if (event.ctrlKey || event.metaKey || event.altKey) return;
	const target = event.target as HTMLElement | null;
	if (target && /^(INPUT|TEXTAREA|SELECT|BUTTON)$/.test(target.tagName)) return;
	const name = keyName(event);
	const is = (command: keyof Keys): boolean => keys[command]?.includes(name) === true;
	if (is('down')) move(1);
	else if (is('up')) move(-1);
	else if (is('open')) {
		const row = board.querySelector<HTMLAnchorElement>('a.row.sel');
		if (!row) return;
		location.href = row.href;
	} else if (is('back')) {
		if (location.pathname !== '/') location.href = '/';
	} else if (is('help')) location.href = location.pathname === '/help' ? '/' : '/help';
	else return;
	event.preventDefault();
});
