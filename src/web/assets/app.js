// Progressive enhancement only: every page works without this file.
document.addEventListener('DOMContentLoaded', () => {
  for (const button of document.querySelectorAll('[data-copy]')) {
    const input = document.querySelector(button.getAttribute('data-copy'));
    const status = button.parentElement.querySelector('[data-copy-status]');
    if (!input || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener('click', async () => {
      try {
        await navigator.clipboard.writeText(input.value);
        if (status) status.textContent = 'Copied.';
      } catch {
        input.select();
        if (status) status.textContent = 'Press Ctrl+C (⌘C) to copy.';
      }
    });
  }
  for (const input of document.querySelectorAll('[data-select-on-focus]')) {
    input.addEventListener('focus', () => input.select());
  }
  setUpMenus();
  setUpPalette();
  setUpBoard();
  openNewIssueForm();
  window.addEventListener('hashchange', openNewIssueForm);
});

/** The header's menus (the organization switcher, the phone's Menu) close on Escape or a click elsewhere, as menus do. */
function setUpMenus() {
  const menus = [...document.querySelectorAll('header details')];
  document.addEventListener('click', (event) => {
    for (const menu of menus) if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  document.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    for (const menu of menus) {
      if (!menu.open) continue;
      menu.open = false;
      menu.querySelector('summary').focus();
    }
  });
}

/**
 * The command palette: Ctrl+K / Cmd+K, or typing in the header's search box, opens it. It lists
 * the commands the page offers for the user's role (the layout's <template>) and, as you type,
 * what GET /api/palette/search finds (the session cookie and the organization in X-Org-Id).
 * Without JavaScript, the header's search box opens the search page.
 */
function setUpPalette() {
  const form = document.querySelector('[data-palette]');
  const dialog = document.getElementById('palette');
  if (!form || !dialog) return;
  const base = form.getAttribute('data-palette');
  const orgId = form.getAttribute('data-org-id');
  const box = form.querySelector('input[name=q]');
  const input = document.getElementById('palette-input');
  const list = document.getElementById('palette-results');
  const empty = document.getElementById('palette-empty');
  const commands = [...(document.getElementById('palette-commands')?.content.children ?? [])];
  let opener = null;
  let selected = -1;
  let timer = null;
  let controller = null;
  const hrefOf = (hit) =>
    hit.type === 'issue' ? `${base}/issues/${encodeURIComponent(hit.key)}` : hit.type === 'project' ? `${base}/projects/${encodeURIComponent(hit.key)}` : `${base}/issues?assignee_id=${encodeURIComponent(hit.id)}`;
  const open = (text) => {
    opener = document.activeElement;
    // What was typed in the header's box goes on in the palette's, not in both.
    if (opener === box) box.value = '';
    dialog.hidden = false;
    input.value = text;
    input.focus();
    input.setSelectionRange(text.length, text.length);
    search();
  };
  const close = () => {
    dialog.hidden = true;
    clearTimeout(timer);
    controller?.abort();
    if (opener && opener.focus) opener.focus();
  };
  // Closed first: a command may lead to a place on this same page (Create issue, on the issue list).
  const go = (href) => {
    close();
    location.href = href;
  };
  const select = (index) => {
    const items = [...list.children];
    selected = Math.max(-1, Math.min(index, items.length - 1));
    items.forEach((li, i) => li.setAttribute('aria-selected', String(i === selected)));
    if (selected >= 0) {
      input.setAttribute('aria-activedescendant', items[selected].id);
      items[selected].scrollIntoView({ block: 'nearest' });
    } else input.removeAttribute('aria-activedescendant');
  };
  const matching = (q) => {
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    return commands.filter((c) => {
      const text = `${c.textContent} ${c.getAttribute('data-keywords')}`.toLowerCase();
      return words.every((w) => text.includes(w));
    });
  };
  // `refusal`: why the search found nothing this time (too many searches a minute, a query too long), said instead of "no results".
  const show = (q, hits, refusal = null) => {
    const options = hits.map((hit) => {
      // An option holds text, not a link (no control inside a control): Enter or a click follows data-href.
      const li = document.createElement('li');
      li.setAttribute('role', 'option');
      li.setAttribute('data-href', hrefOf(hit));
      li.textContent = `${hit.type}: ${hit.key ? `${hit.key} ` : ''}${hit.title}`;
      return li;
    });
    options.push(...matching(q).map((c) => c.cloneNode(true)));
    options.forEach((li, i) => (li.id = `palette-option-${i}`));
    list.replaceChildren(...options);
    empty.textContent = refusal ? `Search failed: ${refusal}` : options.length ? '' : `No results for “${q}”.`;
    select(options.length ? 0 : -1);
  };
  const search = async () => {
    const q = input.value.trim();
    controller?.abort();
    if (!q) return show('', []);
    controller = new AbortController();
    try {
      const response = await fetch(`/api/palette/search?q=${encodeURIComponent(q)}`, { headers: { 'x-org-id': orgId, accept: 'application/json' }, signal: controller.signal });
      const body = await response.json().catch(() => ({}));
      if (input.value.trim() !== q) return;
      if (response.ok) show(q, body);
      else show(q, [], body.detail || body.title || `the service answered ${response.status}.`);
    } catch (error) {
      if (error.name !== 'AbortError') show(q, [], 'the service did not answer.');
    }
  };
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
      event.preventDefault();
      if (dialog.hidden) open('');
      else close();
    } else if (!dialog.hidden && event.key === 'Escape') close();
  });
  // The header's box: what is typed there goes on in the palette, with its results.
  box?.addEventListener('input', () => {
    if (dialog.hidden && box.value.trim()) open(box.value);
  });
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) close();
  });
  list.addEventListener('click', (event) => {
    const option = event.target.closest('[role=option]');
    if (option) go(option.getAttribute('data-href'));
  });
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') select(selected + 1);
    else if (event.key === 'ArrowUp') select(selected - 1);
    else if (event.key === 'Enter' && selected >= 0) go(list.children[selected].getAttribute('data-href'));
    // Nothing chosen: the search page, as the header's form without JavaScript.
    else if (event.key === 'Enter' && input.value.trim()) location.href = `${base}/search?q=${encodeURIComponent(input.value.trim())}`;
    else return;
    event.preventDefault();
  });
}

/**
 * The board: a card moves by its "Move to…" menu or by drag and drop. Either sends the change
 * to the REST API (PATCH /api/issues/:key, the session cookie, X-Org-Id), which checks the role
 * and the status as for any client; then the card moves to its column in priority order and
 * the board's status line says what happened. Without JavaScript the menu's buttons post the
 * page's form instead.
 */
function setUpBoard() {
  const board = document.querySelector('[data-board]');
  if (!board) return;
  const orgId = board.getAttribute('data-org-id');
  const priorities = board.getAttribute('data-priorities').split(',');
  const status = document.querySelector('[data-board-status]');
  const columnOf = (name) => [...board.querySelectorAll('.column')].find((c) => c.getAttribute('data-status') === name);
  const recount = (column, delta) => {
    const count = column.querySelector('[data-count]');
    const n = Number(count.getAttribute('data-count')) + delta;
    count.setAttribute('data-count', String(n));
    count.textContent = `(${n}${count.getAttribute('data-more') === 'true' ? '+' : ''})`;
  };
  const move = async (card, target) => {
    const from = card.closest('.column');
    const to = columnOf(target);
    if (!to || from === to) return;
    const key = card.getAttribute('data-key');
    let response;
    try {
      response = await fetch(`/api/issues/${encodeURIComponent(key)}`, {
        method: 'PATCH',
        headers: { 'content-type': 'application/merge-patch+json', accept: 'application/json', 'x-org-id': orgId },
        body: JSON.stringify({ status: target }),
      });
    } catch {
      status.textContent = `Could not move ${key}: the service did not answer.`;
      return;
    }
    if (!response.ok) {
      const problem = await response.json().catch(() => ({}));
      status.textContent = `Could not move ${key}: ${problem.detail || problem.title || response.statusText}`;
      return;
    }
    const rank = priorities.indexOf(card.getAttribute('data-priority'));
    const after = [...to.querySelectorAll('.issue-card')].find((c) => priorities.indexOf(c.getAttribute('data-priority')) > rank);
    to.querySelector('.cards').insertBefore(card, after ?? null);
    recount(from, -1);
    recount(to, 1);
    for (const button of card.querySelectorAll('form.move button')) button.hidden = button.value === target;
    const menu = card.querySelector('details.move-menu');
    if (menu) menu.open = false;
    status.textContent = `Moved ${key} to ${target}.`;
    // The keyboard goes on from the card's menu, in its new column.
    (card.querySelector('summary') ?? card.querySelector('a'))?.focus();
  };
  board.addEventListener('submit', (event) => {
    const form = event.target.closest('form.move');
    if (!form || !event.submitter) return;
    event.preventDefault();
    move(form.closest('.issue-card'), event.submitter.value);
  });
  let dragged = null;
  for (const card of board.querySelectorAll('.issue-card[draggable=true]')) {
    card.addEventListener('dragstart', (event) => {
      dragged = card;
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', card.getAttribute('data-key'));
    });
    card.addEventListener('dragend', () => (dragged = null));
  }
  for (const column of board.querySelectorAll('.column')) {
    column.addEventListener('dragover', (event) => {
      if (!dragged) return;
      event.preventDefault();
      column.classList.add('drop');
    });
    column.addEventListener('dragleave', (event) => {
      if (!column.contains(event.relatedTarget)) column.classList.remove('drop');
    });
    column.addEventListener('drop', (event) => {
      event.preventDefault();
      column.classList.remove('drop');
      const card = dragged;
      dragged = null;
      if (card) move(card, column.getAttribute('data-status'));
    });
  }
}

/** The palette's "Create issue" leads here: the issue form, open, the title focused. */
function openNewIssueForm() {
  if (location.hash !== '#new-issue') return;
  const form = document.getElementById('new-issue');
  if (!form) return;
  form.open = true;
  document.getElementById('new-title')?.focus();
}

// ==== Relative times and the issue page's properties (their own listener, apart from the rest) ====
document.addEventListener('DOMContentLoaded', () => {
  showRelativeTimes();
  // Once a minute, so "now" becomes "1 min. ago" on a page left open.
  setInterval(showRelativeTimes, 60_000);
  setUpIssueProperties();
});

const RELATIVE_UNITS = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];

/** "3 hr. ago", "yesterday", "in 2 days": the largest unit the distance holds once. */
function relativeTime(date, now, format) {
  const seconds = (date.getTime() - now) / 1000;
  for (const [unit, size] of RELATIVE_UNITS) {
    if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  }
  return format.format(0, 'second');
}

/**
 * Every <time data-relative> the server rendered (src/views/time.ts: UTC text and title) shows the
 * distance to now as its text and the exact local time as its title.
 */
function showRelativeTimes(root = document) {
  if (typeof Intl === 'undefined' || !Intl.RelativeTimeFormat) return;
  const lang = document.documentElement.lang || undefined;
  const format = new Intl.RelativeTimeFormat(lang, { numeric: 'auto', style: 'short' });
  const exact = new Intl.DateTimeFormat(undefined, { dateStyle: 'full', timeStyle: 'long' });
  const now = Date.now();
  for (const el of root.querySelectorAll('time[data-relative]')) {
    const date = new Date(el.getAttribute('datetime'));
    if (Number.isNaN(date.getTime())) continue;
    el.textContent = relativeTime(date, now, format);
    el.title = exact.format(date);
  }
}

/**
 * The issue page's sidebar: a property saves when its select changes. The form is posted with
 * fetch as it would be without JavaScript; the issue page it leads to (or the page with the
 * error) gives the new sidebar form, the activity feed and the times, put in place here.
 */
function setUpIssueProperties() {
  const side = document.querySelector('[data-issue-properties]');
  if (!side) return;
  const status = document.getElementById('properties-status');
  for (const button of side.querySelectorAll('[data-property-save]')) button.hidden = true;
  side.addEventListener('change', async (event) => {
    const form = event.target.closest('form[data-property]');
    if (!form) return;
    const select = event.target;
    const label = form.querySelector('label').textContent;
    status.textContent = `Saving the ${label.toLowerCase()}…`;
    let doc = null;
    try {
      const response = await fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form)), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      doc = new DOMParser().parseFromString(await response.text(), 'text/html');
    } catch {
      status.textContent = 'Could not reach the server; the change is not saved.';
      return;
    }
    const fresh = doc.getElementById(form.id);
    // Not the issue page (signed out, the issue deleted): let the browser go where the form leads.
    if (!fresh) return form.submit();
    for (const button of fresh.querySelectorAll('[data-property-save]')) button.hidden = true;
    form.replaceWith(document.adoptNode(fresh));
    for (const id of ['issue-meta', 'activity']) {
      const part = doc.getElementById(id);
      const here = document.getElementById(id);
      if (part && here) here.replaceWith(document.adoptNode(part));
    }
    const error = fresh.querySelector('[data-property-error]') || doc.querySelector('[data-properties-error]');
    status.textContent = error ? error.textContent : `${label} saved.`;
    status.classList.toggle('error', Boolean(error));
    showRelativeTimes();
    if (document.activeElement === document.body || !document.activeElement) document.getElementById(select.id)?.focus();
  });
}
