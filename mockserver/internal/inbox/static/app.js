// The inbox page of the mock server. Everything it shows comes from the /_mock/ routes and
// everything it does calls them with JSON, from this origin; /_mock/events tells it what
// changed. No framework, no build step: text is always set with textContent.
'use strict';

const $ = (sel) => document.querySelector(sel);

const PAGE = 100; // the most one page of a /_mock/ list holds

function readSeen() {
  try {
    return JSON.parse(localStorage.getItem('sms-inbox-seen') || '{}') || {};
  } catch (err) {
    return {};
  }
}

// ALL is the workspace selector's value for every workspace at once: the inbox shows and
// searches the messages of all of them; the tabs about one workspace show the default one's.
const ALL = 'all';

const state = {
  workspace: $('#workspace').value,
  defaultWorkspace: $('#workspace').value, // the page is served with the default one selected
  labels: Object.fromEntries([...$('#workspace').options].map((o) => [o.value, o.textContent])),
  mode: '',
  kind: '', // '', 'sms' or 'otp'
  tab: 'inbox',
  selected: '', // the phone number whose conversation is open
  seen: readSeen(), // messages seen per number
  pageNote: '', // how much of the campaigns list shows
  settled: { workspace: '', text: '' }, // what the last Deliver all settled, and where
};

// --- JSON, with exact amounts ---------------------------------------------------------------

// Amounts are JSON numbers of naira, and a wallet may hold more digits than a float keeps
// (12345678901234567.89 would read as 12345678901234568): they are taken from the response's
// text as strings, never through a float. JSON.parse gives a reviver each value's source text
// in current browsers; elsewhere the amounts are quoted in the text before it is parsed (an
// unescaped `"cost":` cannot occur inside a JSON string, so only members are quoted).
const MONEY = ['cost', 'amount', 'balance', 'liveBalance', 'testBalance'];
const moneyKeys = new Set(MONEY);
const quotedMoney = new RegExp('"(' + MONEY.join('|') + ')"(\\s*:\\s*)(-?\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?)', 'g');

const hasSource = (() => {
  let ok = false;
  try {
    JSON.parse('[1.10]', (key, value, ctx) => {
      if (key === '0') ok = Boolean(ctx) && ctx.source === '1.10';
      return value;
    });
  } catch (err) {
    ok = false;
  }
  return ok;
})();

function parseWithSource(text) {
  return JSON.parse(text, (key, value, ctx) => (moneyKeys.has(key) && typeof value === 'number' ? ctx.source : value));
}

function parseQuoted(text) {
  return JSON.parse(text.replace(quotedMoney, '"$1"$2"$3"'));
}

const parseJSON = hasSource ? parseWithSource : parseQuoted;

// Num is a JSON number kept as written, for showing a request's body as it came.
class Num {
  constructor(source) { this.source = source; }
}

function parseVerbatim(text) {
  if (!hasSource) return JSON.parse(text);
  return JSON.parse(text, (key, value, ctx) => (typeof value === 'number' ? new Num(ctx.source) : value));
}

// pretty indents a value parsed by parseVerbatim, its numbers as they were written and its
// lists of plain values on one line.
function pretty(v, indent) {
  const pad = indent || '';
  const inner = pad + '  ';
  if (v instanceof Num) return v.source;
  if (Array.isArray(v)) {
    if (!v.length) return '[]';
    if (v.every((x) => x === null || typeof x !== 'object' || x instanceof Num)) {
      return '[' + v.map((x) => pretty(x)).join(', ') + ']'; // numbers, a list of recipients: one line
    }
    return '[\n' + v.map((x) => inner + pretty(x, inner)).join(',\n') + '\n' + pad + ']';
  }
  if (v !== null && typeof v === 'object') {
    const keys = Object.keys(v);
    if (!keys.length) return '{}';
    return '{\n' + keys.map((k) => inner + JSON.stringify(k) + ': ' + pretty(v[k], inner)).join(',\n') + '\n' + pad + '}';
  }
  return JSON.stringify(v);
}

// naira formats an amount given as its decimal text ("12345678901234567.89"), exactly: the
// digits are grouped as text.
function naira(amount) {
  const s = String(amount === undefined || amount === null ? '' : amount).trim();
  const m = /^(-?)(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return s ? '₦' + s : '';
  const whole = m[2].replace(/^0+(?=\d)/, '').replace(/\B(?=(\d{3})+$)/g, ',');
  let frac = m[3] || '';
  while (frac.length < 2) frac += '0';
  return m[1] + '₦' + whole + '.' + frac;
}

// --- the routes -----------------------------------------------------------------------------

// ApiError is a failed call: the contract's error message, the HTTP status (0: no answer),
// the error code and the member it names.
class ApiError extends Error {
  constructor(message, status, code, field) {
    super(message);
    this.status = status;
    this.code = code || '';
    this.field = field || '';
  }
}

// missing reports whether err says the server has no such route (an older mock).
const missing = (err) => err instanceof ApiError && (err.status === 404 || err.status === 405);

async function fetchText(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  // A read that gets no answer in READ_WAIT is given up, and the page says the mock cannot be
  // reached, rather than wait for ever (as it would behind a browser's six connections).
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), READ_WAIT);
  init.signal = ctl.signal;
  let res;
  let text;
  try {
    res = await fetch(path, init);
    text = await res.text();
  } catch (err) {
    reachable(false);
    throw new ApiError(ctl.signal.aborted ? 'the mock server does not answer within ' + READ_WAIT / 1000 + ' s'
      : 'the mock server does not answer (' + err.message + ')', 0);
  } finally {
    clearTimeout(timer);
  }
  reachable(true);
  if (!res.ok) {
    let e = {};
    try {
      e = JSON.parse(text).error || {};
    } catch (err) {
      e = {};
    }
    throw new ApiError(e.message || res.status + ' ' + res.statusText, res.status, e.code, e.field);
  }
  return text;
}

// READ_WAIT is how long a call of the mock may take before the page gives up on it.
const READ_WAIT = 15000;

// reachable says, beside the stream's state, whether the last call of the mock was answered.
function reachable(ok) {
  if (ok === stream.reached) return;
  stream.reached = ok;
  if (ok) {
    showStream(stream.text, stream.cls, stream.title);
  } else {
    const s = $('#stream');
    s.textContent = 'cannot reach the mock';
    s.className = 'stream retry';
    s.title = 'A call of the mock server got no answer: is it running, and is this the address it serves?';
  }
}

// api calls a /_mock/ route and returns its JSON, amounts as strings, or throws an ApiError.
async function api(method, path, body) {
  return parseJSON(await fetchText(method, path, body));
}

// query adds the workspace and mode to extra; members undefined or '' are left out.
function query(extra) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(extra || {})) {
    if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  }
  if (state.workspace && state.workspace !== ALL && !q.has('workspaceId')) q.set('workspaceId', state.workspace);
  if (state.mode && !q.has('mode')) q.set('mode', state.mode);
  return q.toString();
}

// --- notices --------------------------------------------------------------------------------

// notify shows text until it is dismissed, or until a notice with the same key replaces or
// clears it. kind is 'error' or 'info'.
function notify(text, opts) {
  const o = opts || {};
  const box = $('#notices');
  if (o.key) unnotify(o.key);
  const last = box.lastElementChild;
  if (last && !o.key && last.dataset.text === text) return; // the same error again: shown once
  const close = el('button', { type: 'button', className: 'dismiss', title: 'Dismiss' }, '×');
  close.setAttribute('aria-label', 'Dismiss');
  const item = el('p', { className: 'notice ' + (o.kind || 'error') }, el('span', { className: 'text' }, text), close);
  item.dataset.text = text;
  if (o.key) item.dataset.key = o.key;
  close.addEventListener('click', () => item.remove());
  box.append(item);
  while (box.children.length > 5) box.firstElementChild.remove();
}

function unnotify(key) {
  for (const n of document.querySelectorAll('#notices .notice')) {
    if (n.dataset.key === key) n.remove();
  }
}

const errText = (err) => String((err && err.message) || err);

// --- elements -------------------------------------------------------------------------------

// el builds an element: el('td', {className: 'x'}, 'text', child, ...).
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  Object.assign(node, props || {});
  for (const c of children) {
    if (c !== null && c !== undefined) node.append(c instanceof Node ? c : String(c));
  }
  return node;
}

const badge = (text, cls) => el('span', { className: 'badge ' + (cls || text) }, text);
const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');
const shortTime = (iso) => {
  const d = new Date(iso);
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleDateString();
};
const plural = (n, word) => n.toLocaleString('en') + ' ' + word + (n === 1 ? '' : 's');

// batch is the bulk job and batch number of a campaign, from its reference: the part before
// the last ":" when a batch number follows (SendBulk's references are JobID:index), or null.
function batch(reference) {
  const m = /^(.+):(\d+)$/.exec(reference || '');
  return m ? { job: m[1], index: Number(m[2]) } : null;
}

// job is the bulk job of a campaign, or ''.
const job = (reference) => (batch(reference) || { job: '' }).job;

// byJob orders campaigns newest first, keeping the batches of one bulk job together in batch
// order: a job's batches are sent several at a time and accepted in any order, so the job
// stands where its newest batch was accepted, its batches by number, the highest first.
function byJob(campaigns) {
  const newest = new Map(); // job (with its mode) -> the newest createdAt of its batches
  const key = (c) => { const b = batch(c.reference); return b ? c.mode + ' ' + b.job : null; };
  for (const c of campaigns) {
    const k = key(c);
    if (k !== null && !(newest.get(k) >= c.createdAt)) newest.set(k, c.createdAt);
  }
  const at = (c) => { const k = key(c); return k === null ? c.createdAt : newest.get(k); };
  return campaigns.sort((a, b) => {
    const ta = at(a), tb = at(b);
    if (ta !== tb) return ta < tb ? 1 : -1;
    const ka = key(a), kb = key(b);
    if (ka !== kb) return (ka || '') < (kb || '') ? -1 : 1;
    if (ka !== null) return batch(b.reference).index - batch(a.reference).index;
    return a._id < b._id ? 1 : -1;
  });
}

// collapsible shows a long text (more than 12 lines or 800 characters) as its first lines and
// a button to show all of it.
function collapsible(text) {
  const all = text.split('\n');
  if (all.length <= 12 && text.length <= 800) return el('pre', {}, text);
  let head = all.slice(0, 8).join('\n');
  if (head.length > 600) head = head.slice(0, 600);
  const pre = el('pre', {}, head + ' …');
  const more = el('button', { type: 'button', className: 'show-all' },
    'show all (' + plural(all.length, 'line') + ', ' + plural(text.length, 'character') + ')');
  more.addEventListener('click', () => {
    const open = more.classList.toggle('open');
    pre.textContent = open ? text : head + ' …';
    more.textContent = open ? 'show less' : 'show all (' + plural(all.length, 'line') + ', ' + plural(text.length, 'character') + ')';
  });
  return el('div', { className: 'collapsible' }, pre, more);
}

// labelCells gives each cell its column's name, which a phone-sized window shows beside it.
function labelCells(tbody) {
  const heads = [...tbody.closest('table').querySelectorAll('thead th')].map((th) => th.textContent);
  for (const tr of tbody.rows) {
    [...tr.cells].forEach((td, i) => { if (heads[i] && td.colSpan === 1) td.dataset.label = heads[i]; });
  }
}

// copyText puts text on the clipboard: the Clipboard API, or a selected text area where it is
// refused.
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch (err) {
    const area = el('textarea', { value: text, readOnly: true });
    area.style.position = 'fixed';
    area.style.opacity = '0';
    document.body.append(area);
    area.select();
    let ok = false;
    try {
      ok = document.execCommand('copy');
    } catch (e) {
      ok = false;
    }
    area.remove();
    return ok;
  }
}

// --- inbox: the conversations ---------------------------------------------------------------

const seenKey = (to) => state.workspace + '|' + state.mode + '|' + to;

function markSeen(to, count) {
  state.seen[seenKey(to)] = count;
  const keys = Object.keys(state.seen);
  if (keys.length > 5000) delete state.seen[keys[0]]; // bounded: the oldest number goes
  try {
    localStorage.setItem('sms-inbox-seen', JSON.stringify(state.seen));
  } catch (err) {
    // storage full or refused: unread counts are only for this visit
  }
}

// The conversations as loaded, and kept up to date from the events without reading them all
// again.
const inbox = {
  list: [], // {to, count (null: not known yet), latest}, the newest first
  total: 0, // conversations the server has for the query
  page: 0, // pages loaded
  complete: false, // every conversation of the query is in list
  params: {}, // the filters they were read with
  raw: '', // the search as typed
  hint: '',
  applied: new Set(), // ids of messages counted since the last read
  loaded: false,
};

// The open conversation.
const thread = { to: '', messages: [], total: 0, complete: true };

// reread spaces whole reads of the list that events ask for: at least a second apart and ten
// times as long as the last one took, so that a large store is not read over and over.
const reread = { timer: 0, lastEnd: 0, cost: 0 };

// search reads the search box: a number in any form (separators dropped, the rest sent as
// typed for the server to normalise) or a text.
function search() {
  const raw = $('#search').value.trim();
  const params = { kind: state.kind };
  if (/^\(?\+?\(?[0-9][0-9 ().-]*$/.test(raw)) {
    params.to = raw.replace(/[\s().-]/g, '');
  } else if (raw) {
    params.contains = raw;
  }
  return { raw, params };
}

const filtered = () => Boolean(inbox.raw || state.kind);

// loadConversations reads the first page of conversations again, or the next one (more).
async function loadConversations(opts) {
  const o = opts || {};
  const more = o.more && inbox.loaded;
  const s = more ? { raw: inbox.raw, params: inbox.params } : search();
  const page = more ? inbox.page + 1 : 1;
  const start = performance.now();
  let params = s.params;
  let hint = more ? inbox.hint : '';
  let r;
  try {
    r = await api('GET', '/_mock/conversations?' + query({ ...params, page, limit: PAGE }));
  } catch (err) {
    if (!(err.status === 400 && err.field === 'to' && params.to)) throw err;
    // Not a whole number: look for it in the texts.
    params = { kind: params.kind, contains: s.raw };
    hint = '“' + s.raw + '” is not a whole phone number: conversations whose texts contain it are shown. ' +
      'Type the whole number (08025671695, +234 802 567 1695, 2348025671695) to find its conversation.';
    r = await api('GET', '/_mock/conversations?' + query({ ...params, page, limit: PAGE }));
  }
  if (!more) {
    inbox.list = [];
    inbox.applied.clear();
  }
  const listed = new Set(inbox.list.map((c) => c.to));
  for (const c of r.data) {
    if (!listed.has(c.to)) inbox.list.push(c); // a page that moved under new messages overlaps the last
  }
  Object.assign(inbox, {
    total: r.pagination.total, page, complete: page * PAGE >= r.pagination.total,
    params, raw: s.raw, hint, loaded: true,
  });
  if (!more && !s.raw && !state.kind) {
    reread.cost = performance.now() - start;
    reread.lastEnd = performance.now();
  }
  renderConversations();
  if (o.thread && state.selected) await loadThread();
  else if (!more && thread.to) renderThread('follow'); // the messages the search matches
}

function scheduleReread() {
  if (reread.timer) return;
  const now = performance.now();
  const due = Math.max(reread.lastEnd + Math.max(1000, 10 * reread.cost), now + 250);
  reread.timer = setTimeout(() => {
    reread.timer = 0;
    later(() => (state.tab === 'inbox' ? loadConversations({ thread: true }) : null));
  }, due - now);
}

function renderConversations() {
  const list = $('#conversations');
  list.replaceChildren();
  const matching = Boolean(inbox.params.contains);
  for (const c of inbox.list) {
    let unread = 0;
    if (!filtered() && c.to !== state.selected && c.count !== null) {
      unread = Math.max(0, c.count - (state.seen[seenKey(c.to)] || 0));
    }
    const side = matching && c.count !== null ? el('span', { className: 'matches' }, c.count.toLocaleString('en') + (c.count === 1 ? ' match' : ' matches'))
      : unread ? el('span', { className: 'unread', title: unread + ' unread' }, unread) : el('span');
    const li = el('li', { className: c.to === state.selected ? 'on' : '' },
      el('span', { className: 'to' }, '+' + c.to),
      el('span', { className: 'when' }, shortTime(c.latest.createdAt)),
      el('span', { className: 'snippet' }, c.latest.from + ': ' + c.latest.text),
      side);
    li.dataset.to = c.to;
    li.addEventListener('click', () => select(c.to));
    list.append(li);
  }
  const empty = $('#no-conversations');
  empty.hidden = inbox.list.length > 0;
  if (!inbox.list.length) {
    if (filtered()) {
      const what = inbox.raw ? '“' + inbox.raw + '”' + (state.kind ? ' among the ' + state.kind.toUpperCase() + ' messages' : '')
        : 'the ' + state.kind.toUpperCase() + ' filter';
      empty.textContent = 'No conversation matches ' + what + '.';
      empty.className = 'empty no-match';
    } else {
      empty.textContent = 'No messages yet. Send one with your app or the SDK; it shows up here at once.';
      empty.className = 'empty no-messages';
    }
  }
  const hint = $('#search-hint');
  hint.textContent = inbox.hint;
  hint.hidden = !inbox.hint;
  const more = $('#more-conversations');
  more.hidden = inbox.complete;
  more.textContent = 'Load more (' + inbox.list.length.toLocaleString('en') + ' of ' + inbox.total.toLocaleString('en') + ')';
}

async function select(to) {
  state.selected = to;
  showThreadLink();
  $('#tab-inbox').classList.add('reading');
  thread.to = '';
  thread.messages = [];
  renderConversations();
  await later(() => loadThread());
}

// --- inbox: the open conversation -----------------------------------------------------------

// loadThread reads the open conversation's newest page again, or the next older one (more).
// Read again, the newest page replaces what it overlaps and the older pages read stay.
async function loadThread(more) {
  const to = state.selected;
  if (!to) return;
  const same = thread.to === to;
  // New messages push the older ones down the pages: a page may overlap the last, never skip.
  const page = more && same ? Math.floor(thread.messages.length / PAGE) + 1 : 1;
  const r = await api('GET', '/_mock/messages?' + query({ to, kind: state.kind, page, limit: PAGE }));
  if (to !== state.selected) return;
  if (page === 1) {
    const oldest = r.data.length ? thread.messages.findIndex((m) => m.id === r.data[r.data.length - 1].id) : -1;
    thread.messages = same && oldest >= 0 ? r.data.concat(thread.messages.slice(oldest + 1)) : r.data;
  } else {
    const have = new Set(thread.messages.map((m) => m.id));
    for (const m of r.data) {
      if (!have.has(m.id)) thread.messages.push(m);
    }
  }
  Object.assign(thread, { to, total: r.pagination.total, complete: thread.messages.length >= r.pagination.total });
  renderThread(page > 1 ? 'keep' : same ? 'follow' : 'newest');
  if (!state.kind) markSeen(to, thread.total);
}

// pinStates says, for each OTP of the open conversation, whether its pin can still be
// verified. The server's pinStatus wins; without it a pin not verified is replaced once a
// newer one went to the same number from the same workspace and mode (the mock voids it).
function pinStates(messages) {
  const out = new Map();
  const newer = new Set();
  for (const m of messages) { // the newest first
    if (m.kind !== 'otp') continue;
    const scope = m.workspaceId + '|' + m.mode;
    let s = m.pinStatus || (m.verified ? 'verified' : m.replaced ? 'replaced' : m.expired ? 'expired' : 'pending');
    if (s === 'pending' && !m.pinStatus && newer.has(scope)) s = 'replaced';
    newer.add(scope);
    out.set(m.id, s);
  }
  return out;
}

const pinBadges = {
  pending: ['not verified', 'pending', 'The pin can still be verified.'],
  verified: ['verified', 'verified', 'The pin was verified.'],
  replaced: ['replaced', 'replaced', 'A newer pin went to this number: this one can no longer be verified.'],
  expired: ['expired', 'expired', 'The pin expired before it was verified.'],
  locked: ['locked', 'expired', 'Too many wrong attempts: this pin is locked.'],
  failed: ['not sent', 'expired', 'The provider refused this OTP: its pin was never sent and cannot be verified.'],
};

function pinBadge(s) {
  const [text, cls, title] = pinBadges[s] || [s, 'pending', ''];
  const b = badge(text, cls + ' pin-state');
  b.title = title;
  return b;
}

// scroll: 'newest' scrolls to the newest message, 'keep' keeps the view where it was (older
// messages were added above), 'follow' follows new messages when the view is at the bottom.
function renderThread(scroll) {
  const list = $('#messages');
  const fromBottom = list.scrollHeight - list.scrollTop;
  const atBottom = fromBottom - list.clientHeight < 40;
  $('#thread-title').textContent = '+' + thread.to + ' · ' + plural(thread.total, state.kind ? state.kind.toUpperCase() + ' message' : 'message');
  list.replaceChildren();
  if (!thread.complete) {
    const older = el('button', { type: 'button', id: 'older-messages', className: 'more' },
      'Load older messages (' + (thread.total - thread.messages.length).toLocaleString('en') + ' more)');
    older.addEventListener('click', () => later(() => loadThread(true)));
    list.append(el('li', { className: 'older' }, older));
  }
  const pins = pinStates(thread.messages);
  const needle = (inbox.params.contains || '').toLowerCase();
  let newestMatch = null;
  for (const m of thread.messages.slice().reverse()) {
    const li = renderMessage(m, pins.get(m.id));
    if (needle && m.text.toLowerCase().includes(needle)) {
      li.classList.add('match');
      newestMatch = li;
    }
    list.append(li);
  }
  if (scroll === 'keep') {
    list.scrollTop = list.scrollHeight - fromBottom;
  } else if (scroll === 'newest' && newestMatch) {
    newestMatch.scrollIntoView({ block: 'center' });
  } else if (scroll === 'newest' || atBottom) {
    list.scrollTop = list.scrollHeight;
  }
}

function renderMessage(m, pin) {
  const details = el('button', { type: 'button', className: 'details-button', title: 'Campaign, request and status history' }, 'Details');
  details.addEventListener('click', () => openDetails(m));
  const meta = el('div', { className: 'meta' },
    badge(m.status),
    el('span', {}, m.parts + ' part' + (m.parts === 1 ? '' : 's') + ' · ' + m.encoding),
    el('span', {}, m.channel),
    el('span', { title: 'cost', className: 'cost' }, naira(m.cost)),
    el('span', { title: 'mode' }, m.mode),
    state.workspace === ALL ? el('span', { title: 'workspace', className: 'workspace' }, state.labels[m.workspaceId] || m.workspaceId) : null,
    el('time', { dateTime: m.createdAt, title: 'updated ' + when(m.updatedAt) }, when(m.createdAt)),
    details,
    copyLink(messageLink(m.id), 'A link that opens this message: click to copy it'));
  const li = el('li', { className: 'msg ' + m.kind },
    el('div', { className: 'from' }, m.from + (m.kind === 'otp' ? ' · OTP' : '')),
    el('div', { className: 'text' }, m.text));
  if (m.kind === 'otp') {
    const copy = el('button', { type: 'button', className: 'copy', title: 'Copy the pin' }, 'Copy');
    copy.addEventListener('click', async () => {
      if (await copyText(m.pin)) {
        copy.textContent = 'Copied';
        setTimeout(() => { copy.textContent = 'Copy'; }, 1500);
      } else {
        notify('The browser refused to copy the pin: select it and copy it by hand.');
      }
    });
    li.append(el('div', { className: 'otp' }, 'PIN ', el('span', { className: 'pin' }, m.pin), ' ', copy, ' ', pinBadge(pin || 'pending')));
  }
  li.append(meta);
  li.dataset.id = m.id;
  return li;
}

// --- inbox: a message's details -------------------------------------------------------------

const details = { id: '' };

function dl(rows) {
  const list = el('dl', {});
  for (const [k, v] of rows) {
    if (v === undefined || v === null || v === '') continue;
    list.append(el('dt', {}, k), el('dd', {}, v));
  }
  return list;
}

const section = (title, cls, ...body) => el('section', { className: cls }, el('h3', {}, title), ...body);
const unavailable = (text) => el('p', { className: 'hint unavailable' }, text);

// findCampaign looks for a message's campaign in its workspace's campaign list, the newest
// first, until the campaigns are older than the message (ten pages at most).
async function findCampaign(m) {
  for (let page = 1; page <= 10; page++) {
    const r = await api('GET', '/_mock/workspaces/' + encodeURIComponent(m.workspaceId) + '/campaigns?' +
      new URLSearchParams({ mode: m.mode, page, limit: PAGE }));
    const c = r.data.find((x) => x._id === m.campaignId);
    if (c) return c;
    if (r.data.length < PAGE || Date.parse(r.data[r.data.length - 1].createdAt) < Date.parse(m.createdAt)) return null;
  }
  return null;
}

async function openDetails(m) {
  details.id = m.id;
  const dialog = $('#details');
  const body = $('#details-body');
  $('#details-title').textContent = (m.kind === 'otp' ? 'OTP' : 'SMS') + ' to +' + m.to;
  body.replaceChildren(el('p', { className: 'hint' }, 'Loading…'));
  if (!dialog.open) dialog.showModal();

  // GET /_mock/messages/{id}: the message with its campaign, request and history. A server
  // without the route answers 404, and what the lists give is shown instead.
  let d = null;
  let problem = '';
  try {
    const r = await api('GET', '/_mock/messages/' + encodeURIComponent(m.id));
    d = r.data || r;
  } catch (err) {
    if (!missing(err)) problem = errText(err);
  }
  if (details.id !== m.id) return;
  const msg = d && d.id ? d : m;
  const parts = [];
  parts.push(section('Message', 'message', dl([
    ['ID', el('code', {}, msg.id)], ['From', msg.from], ['Text', el('span', { className: 'text' }, msg.text)],
    ['Status', badge(msg.status)], ['Channel', msg.channel], ['Parts', msg.parts + ' · ' + msg.encoding],
    ['Cost', naira(msg.cost)], ['Mode', msg.mode], ['Workspace', el('code', {}, msg.workspaceId)],
    ['Sent', when(msg.createdAt)], ['Updated', when(msg.updatedAt)],
  ])));

  if (msg.kind === 'otp') {
    const pin = pinStates(thread.messages.some((x) => x.id === msg.id) ? thread.messages : [msg]).get(msg.id);
    parts.push(section('Pin', 'pin-details', dl([
      ['Pin ID', el('code', {}, msg.pinId)], ['State', pinBadge(msg.pinStatus || pin || 'pending')],
      ['Expires', d && d.expiresAt ? when(d.expiresAt) : msg.expiresAt ? when(msg.expiresAt) : ''],
    ])));
  } else {
    let c = d && d.campaign;
    let note = '';
    if (!c && msg.campaignId) {
      try {
        c = await findCampaign(msg);
        if (!c) note = 'The campaign is not among the newest 1,000 of its workspace, or was forgotten.';
      } catch (err) {
        note = 'The campaign could not be read: ' + errText(err);
      }
      if (details.id !== m.id) return;
    }
    parts.push(section('Campaign', 'campaign', c ? dl([
      ['ID', el('code', {}, c._id)], ['Reference', c.reference ? el('code', { className: 'reference' }, c.reference) : 'none'],
      ['Job', job(c.reference) ? el('code', { className: 'job' }, job(c.reference)) : ''],
      ['Sender', c.senderId], ['Recipients', Number(c.recipientCount).toLocaleString('en')],
      ['Sent to provider', badge(c.status, c.status === 'sent' ? 'sent-campaign' : c.status)],
      ['Delivery', c.delivery ? badge(c.delivery) : ''],
      ['Counts', c.counts ? [c.counts.sent, c.counts.delivered, c.counts.failed, c.counts.dnd].join(' / ') + ' sent / delivered / failed / dnd' : ''],
      ['Amount', naira(c.amount)], ['Created', when(c.createdAt)],
    ]) : el('p', { className: 'hint' }, note || 'No campaign.')));
  }

  const rq = d && d.request;
  if (rq) {
    let bodyText = '';
    if (rq.body !== undefined && rq.body !== null) bodyText = typeof rq.body === 'string' ? rq.body : pretty(rq.body);
    parts.push(section('Request', 'request', dl([
      ['Request', el('code', {}, (rq.method || '') + ' ' + (rq.path || ''))], ['Request ID', el('code', {}, rq.requestId)],
      ['Status', rq.status], ['Time', when(rq.time)], ['Body', bodyText ? collapsible(bodyText) : ''],
    ])));
  } else {
    parts.push(section('Request', 'request', unavailable(d
      ? (m.kind === 'otp'
        ? 'The mock does not link an OTP message to the request that sent it: find its POST /v1/otp/send in the Requests tab.'
        : 'The request that made this message is no longer in the request log.')
      : 'Not available: this mock server does not say which request made a message (GET /_mock/messages/{id}).')));
  }

  const history = d && Array.isArray(d.history) ? d.history : null;
  if (history) {
    parts.push(section('Status history', 'history', el('ol', { className: 'history' },
      ...history.map((h) => el('li', {}, badge(h.status), ' ', when(h.at || h.time))))));
  } else {
    const known = [el('li', {}, badge('sent'), ' ', when(msg.createdAt))];
    if (msg.status !== 'sent') known.push(el('li', {}, badge(msg.status), ' ', when(msg.updatedAt)));
    parts.push(section('Status history', 'history', el('ol', { className: 'history' }, ...known),
      unavailable('From the message\'s sent and last-changed times: this mock server reports no history of its own.')));
  }
  if (problem) parts.unshift(el('p', { className: 'notice error' }, 'Details: ' + problem));
  body.replaceChildren(...parts);
}

$('#details-close').addEventListener('click', () => $('#details').close());
$('#details').addEventListener('close', () => { details.id = ''; });

// --- inbox: what the events change ----------------------------------------------------------

// Events are applied one at a time, in order, between the reads of the lists: a read never
// overtakes an event, and an event never lands in the middle of a read.
let chain = Promise.resolve();
let backlog = 0;

function enqueue(task) {
  backlog++;
  const run = chain.then(task).finally(() => { backlog--; });
  chain = run.catch((err) => notify(errText(err), { key: 'load' }));
  return run;
}

// later queues a task whose error the queue shows.
const later = (task) => enqueue(task).catch(() => {});

const inView = (ev) => (state.workspace === ALL || ev.workspaceId === state.workspace) && (!state.mode || ev.mode === state.mode);

// oneWorkspace is the workspace of the tabs about one: the selected one, or the default one
// when all are.
const oneWorkspace = () => (state.workspace === ALL ? state.defaultWorkspace : state.workspace);

// applyNew puts new messages (the newest first) at the top of the list and in the open
// conversation, counting each once.
async function applyNew(messages) {
  const unknown = [];
  let toThread = false;
  for (const m of messages.slice().reverse()) {
    if (inbox.applied.has(m.id)) continue;
    if (inbox.applied.size > 10000) inbox.applied.clear();
    inbox.applied.add(m.id);
    const i = inbox.list.findIndex((c) => c.to === m.to);
    let c;
    if (i >= 0) {
      c = inbox.list.splice(i, 1)[0];
      if (c.count !== null) c.count++;
    } else if (inbox.complete) {
      c = { to: m.to, count: 1 }; // every conversation is listed: this one is new
      inbox.total++;
    } else {
      c = { to: m.to, count: null }; // new, or beyond the pages read: counted below
      unknown.push(c);
    }
    c.latest = m;
    inbox.list.unshift(c);
    if (m.to === state.selected && thread.to === m.to && !thread.messages.some((x) => x.id === m.id)) {
      thread.messages.unshift(m);
      thread.total++;
      toThread = true;
    }
  }
  renderConversations();
  if (toThread) {
    renderThread('follow');
    if (!state.kind) markSeen(thread.to, thread.total);
  }
  if (unknown.length > 5) {
    scheduleReread();
    return;
  }
  for (const c of unknown) {
    // One number's conversation: the server checks each message's number, without grouping
    // the whole store as a read of the list does.
    const r = await api('GET', '/_mock/conversations?' + query({ to: c.to, kind: state.kind, limit: 1 }));
    const got = r.data[0];
    if (got && c.count === null) {
      c.count = got.count;
      if (got.count === 1) inbox.total++;
    }
  }
  if (unknown.length) renderConversations();
}

async function applyCampaign(ev) {
  if (!inView(ev) || (state.kind && state.kind !== 'sms')) return;
  if (inbox.raw || !inbox.loaded || ev.count > PAGE || backlog > 20) {
    scheduleReread(); // a search, or more than a page of new conversations: read again, later
    return;
  }
  const r = await api('GET', '/_mock/messages?' + query({ campaignId: ev.campaignId, mode: ev.mode, limit: PAGE }));
  await applyNew(r.data);
}

async function applyOTP(ev) {
  if (!inView(ev) || (state.kind && state.kind !== 'otp')) return;
  if (inbox.raw || !inbox.loaded || backlog > 20) {
    scheduleReread();
    return;
  }
  const r = await api('GET', '/_mock/messages?' + query({ kind: 'otp', to: ev.to, mode: ev.mode, limit: 5 }));
  const m = r.data.find((x) => x.id === ev.messageId);
  if (m) await applyNew([m]);
  else scheduleReread();
}

// applyStatus reads again the open conversation's messages of a campaign whose recipients
// moved.
async function applyStatus(ev) {
  if (ev.workspaceId && state.workspace !== ALL && ev.workspaceId !== state.workspace) return;
  const to = state.selected;
  if (!to || !thread.messages.some((m) => m.campaignId === ev.campaignId)) return;
  const r = await api('GET', '/_mock/messages?' + query({ campaignId: ev.campaignId, to, kind: state.kind, limit: PAGE }));
  if (to !== state.selected) return;
  const fresh = new Map(r.data.map((m) => [m.id, m]));
  thread.messages = thread.messages.map((m) => fresh.get(m.id) || m);
  renderThread('follow');
}

function applyVerified(ev) {
  let changed = false;
  for (const m of thread.messages) {
    if (m.pinId === ev.pinId && !m.verified) {
      m.verified = true;
      if (m.pinStatus) m.pinStatus = 'verified';
      changed = true;
    }
  }
  if (changed) renderThread('follow');
}

function inboxEvent(type, ev) {
  switch (type) {
    case 'messages.created':
      if (ev.kind !== 'otp') later(() => applyCampaign(ev)); // an OTP's otp.sent names its message
      break;
    case 'otp.sent':
      later(() => applyOTP(ev));
      break;
    case 'messages.status':
    case 'campaign.settled':
      later(() => applyStatus(ev));
      break;
    case 'otp.verified':
      applyVerified(ev);
      break;
    case 'clock.advanced':
      if (thread.messages.some((m) => m.kind === 'otp' && m.pinStatus === 'pending')) later(() => loadThread());
      break;
    case 'messages.cleared':
    case 'resync':
    case 'reset':
      later(() => loadConversations({ thread: true }));
      break;
    default:
  }
}

// --- campaigns ------------------------------------------------------------------------------

// A campaign's text, by id: the campaign list does not give it, so it is read once per
// campaign from its newest message.
const campaignTexts = new Map();

async function fillTexts(ids) {
  const todo = ids.filter((id) => !campaignTexts.has(id));
  if (campaignTexts.size + todo.length > 5000) campaignTexts.clear();
  for (const id of todo) campaignTexts.set(id, undefined); // being read: not asked for again
  const worker = async () => {
    for (let id = todo.shift(); id; id = todo.shift()) {
      let text = '';
      try {
        const r = await api('GET', '/_mock/messages?' + new URLSearchParams({ campaignId: id, limit: 1 }));
        text = r.data.length ? r.data[0].text : '';
      } catch (err) {
        text = '';
      }
      campaignTexts.set(id, text);
      const cell = document.querySelector('#campaigns tr[data-id="' + id + '"] td.text');
      if (cell) cell.replaceChildren(campaignText(text));
    }
  };
  await Promise.all([worker(), worker(), worker(), worker()]);
}

function campaignText(text) {
  if (text === undefined) return el('span', { className: 'hint' }, '…');
  if (text === '') return el('span', { className: 'hint', title: 'The messages were cleared or forgotten' }, '—');
  return el('span', { className: 'snippet', title: text }, text);
}

async function loadCampaigns() {
  const modes = state.mode ? [state.mode] : ['live', 'test'];
  const lists = await Promise.all(modes.map((m) =>
    api('GET', '/_mock/workspaces/' + oneWorkspace() + '/campaigns?mode=' + m + '&limit=' + PAGE)));
  const all = byJob(lists.flatMap((r) => r.data));
  const total = lists.reduce((n, r) => n + r.pagination.total, 0);
  state.pageNote = total > all.length ? 'The newest ' + all.length + ' of ' + total.toLocaleString('en') + ' campaigns.' : '';
  showCampaignsNote();
  const body = $('#campaigns');
  body.replaceChildren();
  // How many listed campaigns of a mode carry each reference: more than one is a duplicate,
  // each sent and charged, as a server that does not deduplicate references does.
  const refKey = (c) => c.mode + ' ' + c.reference;
  const refCount = new Map();
  for (const c of all) if (c.reference) refCount.set(refKey(c), (refCount.get(refKey(c)) || 0) + 1);
  for (const c of all) {
    const n = c.counts;
    const idle = c.status !== 'sent' || n.sent === 0;
    const fail = el('input', { type: 'number', min: 1, max: n.sent, value: 1, disabled: idle, title: 'how many to fail' });
    const move = (counts, label) => act(label, () => api('POST', '/_mock/campaigns/' + c._id + '/deliver', counts));
    const text = c.text !== undefined ? c.text : campaignTexts.get(c._id);
    const b = batch(c.reference);
    const dups = c.reference ? refCount.get(refKey(c)) : 0;
    const row = el('tr', {},
      el('td', { className: 'campaign' }, el('code', {}, c._id)),
      el('td', { className: 'reference' }, !c.reference ? '' : b
        ? el('code', { className: 'reference', title: 'batch ' + b.index + ' of the bulk job ' + b.job }, el('span', { className: 'job' }, b.job), ':' + b.index)
        : el('code', { className: 'reference' }, c.reference),
      dups > 1 ? el('div', { className: 'duplicate', title: dups + ' campaigns carry this reference: each was sent and charged' }, 'sent ' + dups + '×') : null),
      el('td', { className: 'text' }, campaignText(text)),
      el('td', {}, c.mode, el('div', { className: 'hint' }, c.senderId)),
      el('td', { className: 'count' }, Number(c.recipientCount).toLocaleString('en')),
      el('td', { className: 'status' }, badge(c.status, c.status === 'sent' ? 'sent-campaign' : c.status)),
      el('td', { className: 'delivery' }, badge(c.status === 'sent' ? c.delivery : '-', c.delivery)),
      el('td', { className: 'count' }, [n.sent, n.delivered, n.failed, n.dnd].join(' / ')),
      el('td', { className: 'money-cell' }, naira(c.amount)),
      el('td', { className: 'created', title: when(c.createdAt) }, shortTime(c.createdAt)),
      el('td', { className: 'actions' },
        el('button', { type: 'button', className: 'deliver', disabled: idle, onclick: () => move({}, 'Deliver') }, 'Deliver'), ' ',
        el('button', { type: 'button', className: 'dnd', disabled: idle, onclick: () => move({ dnd: n.sent }, 'Mark DND') }, 'Mark DND'), ' ',
        el('span', { className: 'fail-some' }, fail,
          el('button', { type: 'button', className: 'fail', disabled: idle, onclick: () => move({ failed: Number(fail.value) }, 'Fail') }, 'Fail'))));
    row.dataset.id = c._id;
    body.append(row);
  }
  if (!all.length) body.append(el('tr', {}, el('td', { colSpan: 11, className: 'empty' }, 'No campaigns in this workspace yet.')));
  labelCells(body);
  fillTexts(all.filter((c) => c.text === undefined).map((c) => c._id));
  // A processing campaign is sent a second after it was accepted: look again then.
  if (all.some((c) => c.status === 'processing')) setTimeout(refreshSoon, 1000);
}

// deliverAll settles every campaign still sent: POST /_mock/deliver.
async function deliverAll() {
  let r;
  try {
    r = await api('POST', '/_mock/deliver', {});
  } catch (err) {
    if (!missing(err)) throw err;
    notify('Deliver all is not available: this mock server has no POST /_mock/deliver. Deliver each campaign with its own button.',
      { kind: 'info', key: 'deliver-all' });
    return;
  }
  unnotify('deliver-all');
  const n = r.campaigns !== undefined ? r.campaigns : r.settled;
  state.settled = {
    workspace: oneWorkspace(),
    text: typeof n === 'number' ? 'Settled ' + plural(n, 'campaign') + '.' : 'Every campaign still sent was settled.',
  };
  showCampaignsNote();
}

// showCampaignsNote writes the campaigns tab's note: how much of the list shows, and what the
// last Deliver all in this workspace settled, which the list read after it must not erase.
function showCampaignsNote() {
  const settled = state.settled.workspace === oneWorkspace() ? state.settled.text : '';
  $('#campaigns-note').textContent = [state.pageNote, settled].filter(Boolean).join(' ');
}

// --- sender IDs -----------------------------------------------------------------------------

async function loadSenders() {
  const r = await api('GET', '/_mock/workspaces/' + oneWorkspace() + '/sender-ids');
  const body = $('#senders');
  body.replaceChildren();
  for (const s of r.data) {
    const pending = s.status === 'pending';
    const move = (to, label) => act(label, () => api('POST', '/_mock/sender-ids/' + s._id + '/' + to, {}));
    const row = el('tr', {},
      el('td', {}, s.title),
      el('td', { className: 'status' }, badge(s.status)),
      el('td', {}, s.company),
      el('td', {}, s.usecase),
      el('td', {}, when(s.createdAt)),
      el('td', { className: 'actions' },
        el('button', { type: 'button', className: 'approve', disabled: !pending, onclick: () => move('approve', 'Approve') }, 'Approve'), ' ',
        el('button', { type: 'button', className: 'block danger', disabled: !pending, onclick: () => move('block', 'Block') }, 'Block')));
    row.dataset.title = s.title;
    body.append(row);
  }
  labelCells(body);
}

// --- wallets, faults, requests, clock ------------------------------------------------------------

async function loadWallets() {
  const r = await api('GET', '/_mock/workspaces');
  const ws = r.data.find((w) => w.workspaceId === oneWorkspace());
  if (!ws) return;
  $('#live-balance').textContent = naira(ws.liveBalance);
  $('#test-balance').textContent = naira(ws.testBalance);
}

async function loadFaults() {
  const r = await api('GET', '/_mock/faults');
  const body = $('#faults');
  body.replaceChildren();
  for (const f of r.rules) {
    body.append(el('tr', {},
      el('td', {}, f.method || 'any'), el('td', {}, f.path || 'any'), el('td', {}, f.status || '-'),
      el('td', {}, f.times || '∞'), el('td', {}, f.latency || '-'), el('td', {}, f.drop ? 'yes' : ''),
      el('td', {}, f.providerFailure ? 'yes' : ''), el('td', {}, f.probability || '')));
  }
  if (!r.rules.length) body.append(el('tr', {}, el('td', { colSpan: 8, className: 'empty' }, 'No faults: every request is served normally.')));
  labelCells(body);
}

async function loadRequests() {
  const r = parseVerbatim(await fetchText('GET', '/_mock/requests'));
  const body = $('#requests');
  body.replaceChildren();
  for (const q of r.data.slice(-200).reverse()) {
    let text = '';
    if (q.body !== undefined) text = typeof q.body === 'string' ? q.body : pretty(q.body);
    const status = q.status instanceof Num ? q.status.source : q.status;
    body.append(el('tr', {},
      el('td', {}, when(q.time)), el('td', {}, q.method),
      el('td', {}, q.path + (q.query ? '?' + q.query : '')), el('td', {}, status),
      el('td', {}, el('code', {}, q.requestId)),
      el('td', { className: 'body' }, text ? collapsible(text) : '')));
  }
  if (!r.data.length) body.append(el('tr', {}, el('td', { colSpan: 6, className: 'empty' }, 'No /v1 requests yet.')));
  labelCells(body);
}

async function loadClock() {
  const r = await api('POST', '/_mock/clock', {});
  $('#now').textContent = when(r.now) + ' (' + r.now + ')';
}

// workspaceLabel is how the selector names workspace w, the i-th oldest: as the page's template
// does (inbox.Workspace.Label).
const workspaceLabel = (w, i) => '#' + (i + 1) + ' · ' + w.country + ' · ' + w.workspaceId + (w.default ? ' (default)' : '');

async function loadWorkspaces() {
  const r = await api('GET', '/_mock/workspaces');
  const sel = $('#workspace');
  sel.replaceChildren(el('option', { value: ALL }, 'All workspaces'));
  r.data.forEach((w, i) => {
    const label = workspaceLabel(w, i);
    state.labels[w.workspaceId] = label;
    if (w.default) state.defaultWorkspace = w.workspaceId;
    sel.append(el('option', { value: w.workspaceId }, label));
  });
  if (state.workspace !== ALL && !r.data.some((w) => w.workspaceId === state.workspace)) {
    state.workspace = (r.data.find((w) => w.default) || r.data[0] || {}).workspaceId || '';
    clearThread();
  }
  sel.value = state.workspace;
}

// --- links ----------------------------------------------------------------------------------

// Every conversation and message has a link a teammate can open: /?workspace=ID&to=NUMBER opens
// a number's conversation (any form of the number: the server normalizes it), /?message=ID one
// message with its details; "Copy link" on each copies it.

const conversationLink = (to) => '/?' + new URLSearchParams({ workspace: state.workspace, to });
const messageLink = (id) => '/?' + new URLSearchParams({ message: id });
const absolute = (link) => new URL(link, location.origin).href;

// copyLink is a "Copy link" control: a link to open (a middle click, "Copy link address")
// that a click copies instead.
function copyLink(link, title) {
  const a = el('a', { className: 'copy-link', href: link, title }, 'Link');
  a.addEventListener('click', (ev) => {
    ev.preventDefault();
    copyLinkOf(a);
  });
  return a;
}

async function copyLinkOf(a) {
  const label = a.textContent;
  if (await copyText(absolute(a.getAttribute('href')))) {
    a.textContent = 'Copied';
    setTimeout(() => { a.textContent = label; }, 1500);
  } else {
    notify('The browser refused to copy the link: ' + absolute(a.getAttribute('href')));
  }
}

// showThreadLink shows the open conversation's link in the thread's head.
function showThreadLink() {
  const a = $('#thread-link');
  a.hidden = !state.selected;
  if (state.selected) a.href = conversationLink(state.selected);
}

$('#thread-link').addEventListener('click', (ev) => {
  ev.preventDefault();
  copyLinkOf(ev.currentTarget);
});

// openLink opens what the page's address asks for (the server read it: data-link-*).
async function openLink() {
  const link = document.body.dataset;
  const sel = $('#workspace');
  const useWorkspace = (id) => {
    if (!id) return;
    if (![...sel.options].some((o) => o.value === id)) {
      notify('No workspace ' + shown(id) + ' in this mock (it was reset or deleted): showing the default one.');
      return;
    }
    state.workspace = id;
    sel.value = id;
  };
  if (link.linkToInvalid) {
    notify('“' + shown(link.linkToInvalid) + '” is not a phone number the API accepts: the link opens no conversation.');
  }
  if (link.linkMessage) {
    try {
      const r = await api('GET', '/_mock/messages/' + encodeURIComponent(link.linkMessage));
      const m = r.data || r;
      useWorkspace(m.workspaceId);
      await select(m.to);
      await openDetails(m);
    } catch (err) {
      notify('The linked message ' + shown(link.linkMessage) + ' cannot be shown: ' + errText(err));
    }
    return;
  }
  useWorkspace(link.linkWorkspace);
  if (link.linkTo) {
    await select(link.linkTo);
    await elsewhere(link.linkTo);
  }
}

// elsewhere says when the linked number has no message in the chosen workspace but has some
// in others.
async function elsewhere(to) {
  if (!state.workspace || state.workspace === ALL) return;
  try {
    const here = await api('GET', '/_mock/messages?' + query({ to, limit: 1 }));
    if (here.pagination && Number(here.pagination.total) > 0) return;
    const all = await api('GET', '/_mock/messages?' + new URLSearchParams({ to, limit: '1' }));
    const n = all.pagination ? Number(all.pagination.total) : 0;
    if (n > 0) {
      notify('No message to +' + to + ' in this workspace; other workspaces have ' + n +
        (n === 1 ? ' message' : ' messages') + ' to it: choose “All workspaces” to see them.', { kind: 'info' });
    }
  } catch (err) {
    // only a hint: the conversation shows what it can
  }
}

// shown is text from a link, made fit to quote in a notice: control and format characters
// (such as U+202E, which would show what follows it reversed) written as \u{...}, and at
// most 80 characters.
function shown(s) {
  const t = String(s).replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => '\\u{' + c.codePointAt(0).toString(16).toUpperCase() + '}');
  return t.length > 80 ? t.slice(0, 79) + '…' : t;
}

// --- wiring ---------------------------------------------------------------------------------

const loaders = {
  inbox: () => enqueue(() => loadConversations({ thread: true })),
  campaigns: loadCampaigns, senders: loadSenders, wallets: loadWallets,
  faults: loadFaults, requests: loadRequests, clock: loadClock,
};

// refresh reads what the open tab shows. A failure shows until the next read succeeds; the
// errors of the controls (act) stay until they are dismissed.
async function refresh() {
  try {
    await loaders[state.tab]();
    unnotify('load');
  } catch (err) {
    notify(errText(err), { key: 'load' });
  }
}

// act runs a control, shows its error until it is dismissed, and reads the tab again.
async function act(label, fn) {
  try {
    await fn();
  } catch (err) {
    notify(label + ': ' + errText(err));
  }
  await refresh();
}

let pending = 0;
function refreshSoon() {
  clearTimeout(pending);
  pending = setTimeout(refresh, 150);
}

function clearThread() {
  state.selected = '';
  thread.to = '';
  thread.messages = [];
  $('#messages').replaceChildren();
  $('#thread-title').textContent = 'Pick a number';
  $('#tab-inbox').classList.remove('reading');
  showThreadLink();
}

function showTab(tab) {
  state.tab = tab;
  document.body.dataset.tab = tab;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('on', b.dataset.tab === tab);
  for (const s of document.querySelectorAll('main > .tab')) s.hidden = s.id !== 'tab-' + tab;
  refresh();
}

$('#tabs').addEventListener('click', (ev) => {
  if (ev.target.dataset.tab) showTab(ev.target.dataset.tab);
});
$('#workspace').addEventListener('change', (ev) => {
  state.workspace = ev.target.value;
  clearThread();
  refresh();
});
$('#mode').addEventListener('change', (ev) => {
  state.mode = ev.target.value;
  refresh();
});
$('#kind').addEventListener('change', (ev) => {
  state.kind = ev.target.value;
  refresh();
});
let typing = 0;
$('#search').addEventListener('input', () => {
  clearTimeout(typing);
  typing = setTimeout(() => later(() => loadConversations()), 250);
});
$('#more-conversations').addEventListener('click', () => later(() => loadConversations({ more: true })));
$('#back').addEventListener('click', () => {
  state.selected = '';
  $('#tab-inbox').classList.remove('reading');
  renderConversations();
});
$('#clear-messages').addEventListener('click', () => {
  if (confirm('Forget every message? Campaigns and wallets stay.')) {
    clearThread();
    act('Clear messages', () => api('DELETE', '/_mock/messages'));
  }
});
$('#reset').addEventListener('click', () => {
  if (confirm('Reset the mock? Every workspace, campaign, message and fault is forgotten.')) {
    act('Reset', async () => {
      await api('POST', '/_mock/reset', {});
      await loadWorkspaces();
    });
  }
});
$('#deliver-all').addEventListener('click', () => act('Deliver all', deliverAll));
$('#wallets').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const form = ev.target;
  act('Set the balance', async () => {
    for (const mode of ['live', 'test']) {
      const v = form.elements[mode].value.trim().replace(/,/g, '');
      if (!v) continue;
      if (!/^[0-9]+(\.[0-9]{1,2})?$/.test(v)) throw new Error(mode + ': a balance is naira with at most 2 decimals');
      // Sent as written: a JSON number with the exact decimals, never through a float.
      await api('POST', '/_mock/workspaces/' + oneWorkspace() + '/balance', '{"mode":"' + mode + '","balance":' + v + '}');
      form.elements[mode].value = '';
    }
  });
});
$('#fault-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const f = ev.target.elements;
  const rule = {};
  if (f.method.value.trim()) rule.method = f.method.value.trim().toUpperCase();
  if (f.path.value.trim()) rule.path = f.path.value.trim();
  if (f.status.value) rule.status = Number(f.status.value);
  if (f.times.value) rule.times = Number(f.times.value);
  if (f.latency.value.trim()) rule.latency = f.latency.value.trim();
  if (f.drop.checked) rule.drop = true;
  if (f.providerFailure.checked) rule.providerFailure = true;
  act('Add the fault', () => api('POST', '/_mock/faults', { rules: [rule] }));
});
$('#clear-faults').addEventListener('click', () => act('Clear the faults', () => api('DELETE', '/_mock/faults')));
$('#clock-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  act('Advance the clock', () => api('POST', '/_mock/clock', { advance: ev.target.elements.advance.value.trim() }));
});

// --- the event stream -----------------------------------------------------------------------

// The page follows GET /_mock/events. The browser reconnects by itself when an open stream
// drops, but not when the server refuses one (a 429 once 64 streams are open, a 403, a 5xx):
// then the page opens a new stream after a pause that doubles on each refusal, from one
// second to thirty, with jitter so that many pages do not come back at once. It resumes after
// the last event it got (lastEventId), so nothing is missed while the ring still holds it; a
// resync event says when it did not.
//
// A browser keeps about six connections to one host, and each stream holds one: so the tabs
// of one browser share one stream. The tab holding the Web Lock STREAM_LOCK opens it and
// passes every event, and its state, to the others over a BroadcastChannel; when that tab
// goes, the lock passes to another, which opens the stream again after the last event id
// every tab keeps. A page left (or kept in the back/forward cache) closes its stream.
const stream = { source: null, last: '', attempt: 0, timer: 0, hello: 0, leader: false, text: 'not connected', cls: '', title: '', reached: true };
const STREAM_LOCK = 'sms-mock-inbox-stream';
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(STREAM_LOCK) : null;
const RETRY_FIRST = 1000;
const RETRY_MAX = 30000;

const EVENT_TYPES = ['messages.created', 'messages.status', 'messages.cleared', 'campaign.settled', 'otp.sent',
  'otp.verified', 'wallet.changed', 'senderid.changed', 'faults.changed', 'clock.advanced', 'workspace.created',
  'reset', 'resync'];

// The tabs other than the inbox read again after these events.
const tabEvents = {
  campaigns: ['messages.created', 'messages.status', 'messages.cleared', 'campaign.settled', 'clock.advanced', 'reset', 'resync'],
  senders: ['senderid.changed', 'reset', 'resync'],
  wallets: ['wallet.changed', 'reset', 'resync'],
  faults: ['faults.changed', 'reset', 'resync'],
  requests: EVENT_TYPES,
  clock: ['clock.advanced', 'reset', 'resync'],
};

function showStream(text, cls, title) {
  stream.text = text;
  stream.cls = cls;
  stream.title = title || '';
  if (stream.leader && channel) channel.postMessage({ state: [text, cls, title || ''] });
  if (!stream.reached) return; // 'cannot reach the mock' stays until a call is answered
  const s = $('#stream');
  s.textContent = text;
  s.className = 'stream ' + cls;
  s.title = (title ? title + ' ' : '') + 'Updates from the mock server (GET /_mock/events); nothing to do with the API\'s live mode.';
}

function connect() {
  clearTimeout(stream.timer);
  const url = '/_mock/events' + (stream.last ? '?lastEventId=' + encodeURIComponent(stream.last) : '');
  const source = new EventSource(url);
  stream.source = source;
  showStream(stream.attempt ? 'reconnecting…' : 'connecting…', 'wait');
  source.onopen = () => {
    stream.attempt = 0;
    showStream('connected', 'on');
  };
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      source.close();
      retry();
    } else {
      showStream('reconnecting…', 'wait', 'The stream dropped; the browser reconnects.');
    }
  };
  for (const type of EVENT_TYPES) {
    source.addEventListener(type, (ev) => {
      if (ev.lastEventId) stream.last = ev.lastEventId;
      if (channel) channel.postMessage({ type, data: ev.data, id: ev.lastEventId });
      handle(type, ev.data);
    });
  }
}

// follow shares the one stream of the browser's tabs (see stream): this tab waits for the
// lock, and meanwhile shows what the tab holding it passes on.
function follow() {
  if (!channel || !navigator.locks) {
    connect(); // a browser without them: a stream per tab
    return;
  }
  channel.onmessage = (m) => {
    const d = m.data || {};
    if (stream.leader) {
      if (d.hello) showStream(stream.text, stream.cls, stream.title); // tell the new tab
      return;
    }
    if (d.state) {
      clearInterval(stream.hello);
      const [text, cls, title] = d.state;
      showStream(text === 'connected' ? 'connected (shared)' : text, cls,
        (title ? title + ' ' : '') + 'Another tab of this browser holds the stream and passes its events on.');
    } else if (d.type) {
      if (d.id) stream.last = d.id;
      handle(d.type, d.data);
    }
  };
  showStream('waiting for the shared stream…', 'wait');
  channel.postMessage({ hello: true });
  stream.hello = setInterval(() => channel.postMessage({ hello: true }), 1000); // until a state comes
  navigator.locks.request(STREAM_LOCK, () => {
    clearInterval(stream.hello);
    stream.leader = true;
    connect();
    return new Promise(() => {}); // held while the page lives
  });
}

// A page left closes its stream: one kept in the back/forward cache must not hold a
// connection. Shown again, it opens it again.
addEventListener('pagehide', () => {
  clearTimeout(stream.timer);
  if (stream.source) stream.source.close();
});
addEventListener('pageshow', (ev) => {
  if (ev.persisted && (stream.leader || !channel || !navigator.locks)) connect();
});

function retry() {
  const cap = Math.min(RETRY_MAX, RETRY_FIRST * 2 ** Math.min(stream.attempt, 10));
  const wait = Math.round(cap / 2 + Math.random() * cap / 2);
  stream.attempt++;
  stream.timer = setTimeout(connect, wait);
  showStream('reconnecting in ' + Math.ceil(wait / 1000) + ' s', 'retry',
    'The server refused the stream (it holds at most 64 at once) or cannot be reached: try ' + stream.attempt + '.');
}

function handle(type, data) {
  let ev = {};
  try {
    ev = parseJSON(data || '{}');
  } catch (err) {
    ev = {};
  }
  if (type === 'workspace.created' || type === 'reset') {
    loadWorkspaces().catch((err) => notify(errText(err), { key: 'load' }));
  }
  if (state.tab === 'inbox') {
    inboxEvent(type, ev);
  } else if ((tabEvents[state.tab] || []).includes(type)) {
    refreshSoon();
  }
}

openLink().finally(() => {
  refresh();
  follow();
});
