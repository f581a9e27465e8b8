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
  setUpPalette();
  setUpBoard();
});

/**
 * Ctrl+K / Cmd+K: the command palette over GET /api/palette/search (the session cookie and the
 * organization in X-Org-Id). Without JavaScript, the header's search box opens the search page.
 */
function setUpPalette() {
  const form = document.querySelector('[data-palette]');
  const dialog = document.getElementById('palette');
  if (!form || !dialog) return;
  const base = form.getAttribute('data-palette');
  const orgId = form.getAttribute('data-org-id');
  const input = document.getElementById('palette-input');
  const list = document.getElementById('palette-results');
  let opener = null;
  let selected = -1;
  let timer = null;
  const hrefOf = (hit) =>
    hit.type === 'issue' ? `${base}/issues/${encodeURIComponent(hit.key)}` : hit.type === 'project' ? `${base}/projects/${encodeURIComponent(hit.key)}` : `${base}/issues?assignee_id=${encodeURIComponent(hit.id)}`;
  const open = () => {
    opener = document.activeElement;
    dialog.hidden = false;
    input.value = '';
    list.replaceChildren();
    input.focus();
  };
  const close = () => {
    dialog.hidden = true;
    if (opener && opener.focus) opener.focus();
  };
  const select = (index) => {
    const items = [...list.children];
    selected = Math.max(-1, Math.min(index, items.length - 1));
    items.forEach((li, i) => li.setAttribute('aria-selected', String(i === selected)));
    if (selected >= 0) input.setAttribute('aria-activedescendant', items[selected].id);
  };
  const search = async () => {
    const q = input.value.trim();
    if (!q) return list.replaceChildren();
    const response = await fetch(`/api/palette/search?q=${encodeURIComponent(q)}`, { headers: { 'x-org-id': orgId, accept: 'application/json' } });
    if (!response.ok || input.value.trim() !== q) return;
    const hits = await response.json();
    list.replaceChildren(
      ...hits.map((hit, i) => {
        const li = document.createElement('li');
        li.id = `palette-hit-${i}`;
        li.setAttribute('role', 'option');
        const a = document.createElement('a');
        a.href = hrefOf(hit);
        a.tabIndex = -1;
        a.textContent = `${hit.type}: ${hit.key ? `${hit.key} ` : ''}${hit.title}`;
        li.append(a);
        return li;
      }),
    );
    select(hits.length ? 0 : -1);
  };
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 'k') {
      event.preventDefault();
      if (dialog.hidden) open();
      else close();
    } else if (!dialog.hidden && event.key === 'Escape') close();
  });
  dialog.addEventListener('click', (event) => {
    if (event.target === dialog) close();
  });
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(search, 150);
  });
  input.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') select(selected + 1);
    else if (event.key === 'ArrowUp') select(selected - 1);
    else if (event.key === 'Enter' && selected >= 0) location.href = list.children[selected].querySelector('a').href;
    else return;
    event.preventDefault();
  });
}

/**
 * The board's drag and drop: dropping a card on a column posts the card's own move form (the
 * same request its buttons send without JavaScript), then reloads the board.
 */
function setUpBoard() {
  const board = document.querySelector('[data-board]');
  if (!board) return;
  let dragged = null;
  for (const card of board.querySelectorAll('.issue-card[draggable=true]')) {
    card.addEventListener('dragstart', (event) => {
      dragged = card;
      event.dataTransfer.setData('text/plain', card.getAttribute('data-key'));
    });
  }
  for (const column of board.querySelectorAll('.column')) {
    column.addEventListener('dragover', (event) => {
      if (!dragged) return;
      event.preventDefault();
      column.classList.add('drop');
    });
    column.addEventListener('dragleave', () => column.classList.remove('drop'));
    column.addEventListener('drop', async (event) => {
      event.preventDefault();
      column.classList.remove('drop');
      const card = dragged;
      dragged = null;
      if (!card || card.closest('.column') === column) return;
      const form = card.querySelector('form.move');
      const body = new URLSearchParams(new FormData(form));
      body.set('status', column.getAttribute('data-status'));
      const response = await fetch(form.action, { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      if (response.ok) location.reload();
    });
  }
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
 * Every <time data-relative> the server rendered (src/web/time.ts: UTC text and title) shows the
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
