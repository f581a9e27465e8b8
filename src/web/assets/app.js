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
});
