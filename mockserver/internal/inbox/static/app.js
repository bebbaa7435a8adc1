// The inbox page of the mock server. Everything it shows comes from the /_mock/ routes and
// everything it does calls them with JSON, from this origin; /_mock/events tells it when to
// read again. No framework, no build step: text is always set with textContent.
'use strict';

const $ = (sel) => document.querySelector(sel);

const state = {
  workspace: $('#workspace').value,
  mode: '',
  tab: 'inbox',
  selected: '', // the phone number whose conversation is open
  conversations: [],
  seen: JSON.parse(localStorage.getItem('sms-inbox-seen') || '{}'), // messages seen per number
};

// api calls a /_mock/ route and returns its JSON, or throws the contract's error message.
async function api(method, path, body) {
  const init = { method, headers: { Accept: 'application/json' } };
  if (body !== undefined) {
    init.headers['Content-Type'] = 'application/json';
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const json = await res.json().catch(() => ({}));
  if (!res.ok) {
    throw new Error((json.error && json.error.message) || res.status + ' ' + res.statusText);
  }
  return json;
}

function notice(err) {
  const el = $('#notice');
  el.textContent = err ? String(err.message || err) : '';
  el.hidden = !err;
}

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
const when = (iso) => new Date(iso).toLocaleString();
const shortTime = (iso) => {
  const d = new Date(iso);
  return d.toDateString() === new Date().toDateString() ? d.toLocaleTimeString() : d.toLocaleDateString();
};
const naira = (n) => '₦' + Number(n).toFixed(2);

function query(extra) {
  const q = new URLSearchParams(extra);
  if (state.workspace) q.set('workspaceId', state.workspace);
  if (state.mode) q.set('mode', state.mode);
  return q.toString();
}

const seenKey = (to) => state.workspace + '|' + state.mode + '|' + to;

function markSeen(to, count) {
  state.seen[seenKey(to)] = count;
  localStorage.setItem('sms-inbox-seen', JSON.stringify(state.seen));
}

// labelCells gives each cell its column's name, which a phone-sized window shows beside it.
function labelCells(tbody) {
  const heads = [...tbody.closest('table').querySelectorAll('thead th')].map((th) => th.textContent);
  for (const tr of tbody.rows) {
    [...tr.cells].forEach((td, i) => { if (heads[i] && td.colSpan === 1) td.dataset.label = heads[i]; });
  }
}

// --- inbox ----------------------------------------------------------------------------------

async function loadConversations() {
  const r = await api('GET', '/_mock/conversations?' + query({ limit: 100 }));
  state.conversations = r.data;
  renderConversations();
  if (state.selected) await loadThread();
}

function renderConversations() {
  const q = $('#search').value.trim().toLowerCase();
  const digits = /^[+0-9 ()-]+$/.test(q) ? q.replace(/[^0-9]/g, '') : ''; // a number: any form
  const list = $('#conversations');
  list.replaceChildren();
  let shown = 0;
  for (const c of state.conversations) {
    const text = c.latest.text.toLowerCase();
    if (q && !(digits && c.to.includes(digits.replace(/^0/, ''))) && !text.includes(q)) continue;
    shown++;
    const unread = c.to === state.selected ? 0 : Math.max(0, c.count - (state.seen[seenKey(c.to)] || 0));
    const li = el('li', { className: c.to === state.selected ? 'on' : '' },
      el('span', { className: 'to' }, '+' + c.to),
      el('span', { className: 'when' }, shortTime(c.latest.createdAt)),
      el('span', { className: 'snippet' }, c.latest.from + ': ' + c.latest.text),
      unread ? el('span', { className: 'unread', title: unread + ' unread' }, unread) : el('span'));
    li.dataset.to = c.to;
    li.addEventListener('click', () => select(c.to));
    list.append(li);
  }
  $('#no-conversations').hidden = shown > 0;
}

async function select(to) {
  state.selected = to;
  $('#tab-inbox').classList.add('reading');
  renderConversations();
  await loadThread();
}

async function loadThread() {
  const to = state.selected;
  const r = await api('GET', '/_mock/messages?' + query({ to, limit: 100 }));
  if (to !== state.selected) return;
  $('#thread-title').textContent = '+' + to + ' · ' + r.pagination.total + ' message' + (r.pagination.total === 1 ? '' : 's');
  const list = $('#messages');
  list.replaceChildren();
  for (const m of r.data.slice().reverse()) list.append(renderMessage(m));
  list.scrollTop = list.scrollHeight;
  markSeen(to, r.pagination.total);
}

function renderMessage(m) {
  const meta = el('div', { className: 'meta' },
    badge(m.status),
    el('span', {}, m.parts + ' part' + (m.parts === 1 ? '' : 's') + ' · ' + m.encoding),
    el('span', {}, m.channel),
    el('span', { title: 'cost' }, naira(m.cost)),
    el('span', { title: 'mode' }, m.mode),
    el('time', { dateTime: m.createdAt, title: 'updated ' + when(m.updatedAt) }, when(m.createdAt)));
  const li = el('li', { className: 'msg ' + m.kind },
    el('div', { className: 'from' }, m.from + (m.kind === 'otp' ? ' · OTP' : '')),
    el('div', { className: 'text' }, m.text));
  if (m.kind === 'otp') {
    li.append(el('div', {}, 'PIN ', el('span', { className: 'pin' }, m.pin), ' ',
      m.verified ? badge('verified') : badge('not verified', 'pending')));
  }
  li.append(meta);
  li.dataset.id = m.id;
  return li;
}

// --- campaigns ------------------------------------------------------------------------------

async function loadCampaigns() {
  const modes = state.mode ? [state.mode] : ['live', 'test'];
  const lists = await Promise.all(modes.map((m) =>
    api('GET', '/_mock/workspaces/' + state.workspace + '/campaigns?mode=' + m + '&limit=100')));
  const all = lists.flatMap((r) => r.data).sort((a, b) => (a.createdAt < b.createdAt ? 1 : -1));
  const body = $('#campaigns');
  body.replaceChildren();
  for (const c of all) {
    const n = c.counts;
    const idle = c.status !== 'sent' || n.sent === 0;
    const fail = el('input', { type: 'number', min: 1, max: n.sent, value: 1, disabled: idle, title: 'how many to fail' });
    const move = (counts) => act(() => api('POST', '/_mock/campaigns/' + c._id + '/deliver', counts));
    const row = el('tr', {},
      el('td', {}, el('code', {}, c._id)),
      el('td', {}, c.mode),
      el('td', {}, c.senderId),
      el('td', {}, c.recipientCount),
      el('td', { className: 'status' }, badge(c.status, c.status === 'sent' ? 'sent-campaign' : c.status)),
      el('td', { className: 'delivery' }, badge(c.status === 'sent' ? c.delivery : '-', c.delivery)),
      el('td', {}, [n.sent, n.delivered, n.failed, n.dnd].join(' / ')),
      el('td', {}, naira(c.amount)),
      el('td', {}, when(c.createdAt)),
      el('td', { className: 'actions' },
        el('button', { type: 'button', className: 'deliver', disabled: idle, onclick: () => move({}) }, 'Deliver all'), ' ',
        fail,
        el('button', { type: 'button', className: 'fail', disabled: idle, onclick: () => move({ failed: Number(fail.value) }) }, 'Fail'), ' ',
        el('button', { type: 'button', className: 'dnd', disabled: idle, onclick: () => move({ dnd: n.sent }) }, 'Mark DND')));
    row.dataset.id = c._id;
    body.append(row);
  }
  if (!all.length) body.append(el('tr', {}, el('td', { colSpan: 10, className: 'empty' }, 'No campaigns in this workspace yet.')));
  labelCells(body);
  // A processing campaign is sent a second after it was accepted: look again then.
  if (all.some((c) => c.status === 'processing')) setTimeout(refreshSoon, 1000);
}

// --- sender IDs -----------------------------------------------------------------------------

async function loadSenders() {
  const r = await api('GET', '/_mock/workspaces/' + state.workspace + '/sender-ids');
  const body = $('#senders');
  body.replaceChildren();
  for (const s of r.data) {
    const pending = s.status === 'pending';
    const move = (to) => act(() => api('POST', '/_mock/sender-ids/' + s._id + '/' + to, {}));
    const row = el('tr', {},
      el('td', {}, s.title),
      el('td', { className: 'status' }, badge(s.status)),
      el('td', {}, s.company),
      el('td', {}, s.usecase),
      el('td', {}, when(s.createdAt)),
      el('td', { className: 'actions' },
        el('button', { type: 'button', className: 'approve', disabled: !pending, onclick: () => move('approve') }, 'Approve'), ' ',
        el('button', { type: 'button', className: 'block danger', disabled: !pending, onclick: () => move('block') }, 'Block')));
    row.dataset.title = s.title;
    body.append(row);
  }
  labelCells(body);
}

// --- wallets, faults, requests, clock ------------------------------------------------------------

async function loadWallets() {
  const r = await api('GET', '/_mock/workspaces');
  const ws = r.data.find((w) => w.workspaceId === state.workspace);
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
  const r = await api('GET', '/_mock/requests');
  const body = $('#requests');
  body.replaceChildren();
  for (const q of r.data.slice(-200).reverse()) {
    body.append(el('tr', {},
      el('td', {}, when(q.time)), el('td', {}, q.method),
      el('td', {}, q.path + (q.query ? '?' + q.query : '')), el('td', {}, q.status),
      el('td', {}, el('code', {}, q.requestId)),
      el('td', {}, q.body === undefined ? '' : el('pre', {}, JSON.stringify(q.body)))));
  }
  labelCells(body);
}

async function loadClock() {
  const r = await api('POST', '/_mock/clock', {});
  $('#now').textContent = when(r.now) + ' (' + r.now + ')';
}

async function loadWorkspaces() {
  const r = await api('GET', '/_mock/workspaces');
  const sel = $('#workspace');
  sel.replaceChildren();
  for (const w of r.data) {
    sel.append(el('option', { value: w.workspaceId }, w.workspaceId + (w.default ? ' (default)' : '')));
  }
  if (!r.data.some((w) => w.workspaceId === state.workspace)) {
    state.workspace = (r.data.find((w) => w.default) || r.data[0] || {}).workspaceId || '';
  }
  sel.value = state.workspace;
}

// --- wiring ---------------------------------------------------------------------------------

const loaders = {
  inbox: loadConversations, campaigns: loadCampaigns, senders: loadSenders, wallets: loadWallets,
  faults: loadFaults, requests: loadRequests, clock: loadClock,
};

// refresh reloads what the open tab shows.
async function refresh() {
  try {
    await loaders[state.tab]();
    notice(null);
  } catch (err) {
    notice(err);
  }
}

// act runs a control and shows what it changed (the event stream refreshes too).
async function act(fn) {
  try {
    await fn();
    notice(null);
  } catch (err) {
    notice(err);
  }
  await refresh();
}

let pending = 0;
function refreshSoon() {
  clearTimeout(pending);
  pending = setTimeout(refresh, 50);
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
  state.selected = '';
  $('#messages').replaceChildren();
  $('#thread-title').textContent = 'Pick a number';
  refresh();
});
$('#mode').addEventListener('change', (ev) => {
  state.mode = ev.target.value;
  refresh();
});
$('#search').addEventListener('input', renderConversations);
$('#back').addEventListener('click', () => {
  state.selected = '';
  $('#tab-inbox').classList.remove('reading');
  renderConversations();
});
$('#clear-messages').addEventListener('click', () => {
  if (confirm('Forget every message? Campaigns and wallets stay.')) {
    state.selected = '';
    $('#messages').replaceChildren();
    act(() => api('DELETE', '/_mock/messages'));
  }
});
$('#reset').addEventListener('click', () => {
  if (confirm('Reset the mock? Every workspace, campaign, message and fault is forgotten.')) {
    act(async () => {
      await api('POST', '/_mock/reset', {});
      await loadWorkspaces();
    });
  }
});
$('#wallets').addEventListener('submit', (ev) => {
  ev.preventDefault();
  const form = ev.target;
  act(async () => {
    for (const mode of ['live', 'test']) {
      const v = form.elements[mode].value.trim();
      if (!v) continue;
      if (!/^[0-9]+(\.[0-9]{1,2})?$/.test(v)) throw new Error(mode + ': a balance is naira with at most 2 decimals');
      // Sent as written: a JSON number with the exact decimals, never through a float.
      await api('POST', '/_mock/workspaces/' + state.workspace + '/balance', '{"mode":"' + mode + '","balance":' + v + '}');
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
  act(() => api('POST', '/_mock/faults', { rules: [rule] }));
});
$('#clear-faults').addEventListener('click', () => act(() => api('DELETE', '/_mock/faults')));
$('#clock-form').addEventListener('submit', (ev) => {
  ev.preventDefault();
  act(() => api('POST', '/_mock/clock', { advance: ev.target.elements.advance.value.trim() }));
});

// Live updates: any change refreshes the open tab; the browser resumes with Last-Event-ID.
const events = new EventSource('/_mock/events');
events.onopen = () => { $('#live').textContent = 'live'; $('#live').classList.add('on'); };
events.onerror = () => { $('#live').textContent = 'reconnecting'; $('#live').classList.remove('on'); };
for (const type of ['messages.created', 'messages.status', 'messages.cleared', 'campaign.settled',
  'otp.sent', 'otp.verified', 'wallet.changed', 'senderid.changed', 'faults.changed',
  'clock.advanced', 'resync']) {
  events.addEventListener(type, refreshSoon);
}
for (const type of ['workspace.created', 'reset']) {
  events.addEventListener(type, () => loadWorkspaces().then(refreshSoon, notice));
}

refresh();
