// The Actions run page's live log: asks for what the runner wrote since the
// last answer until the run completes, as GitHub's log view streams it.
(function () {
  var pre = document.getElementById('log');
  var status = document.getElementById('run-status');
  if (!pre) return;
  var src = pre.getAttribute('data-src');
  var offset = parseInt(pre.getAttribute('data-offset') || '0', 10);
  function tick() {
    fetch(src + '?offset=' + offset, { headers: { Accept: 'application/json' } })
      .then(function (r) { return r.json(); })
      .then(function (d) {
        if (d.log) pre.appendChild(document.createTextNode(d.log));
        offset = d.next;
        if (status) {
          status.textContent = d.status + (d.conclusion ? ' · ' + d.conclusion : '');
          status.className = 'tag ' + (d.conclusion || '');
        }
        pre.setAttribute('data-status', d.status);
        if (d.status !== 'completed') setTimeout(tick, 500);
      })
      .catch(function () { setTimeout(tick, 2000); });
  }
  if (pre.getAttribute('data-status') !== 'completed') setTimeout(tick, 500);
})();
