// hubd's live job log: while a job runs, its page polls the job's raw
// log (same origin, the browser's session) and shows it as it grows;
// once the job completed it reloads the page to draw each step's log.
(function () {
  var pre = document.getElementById('live-log');
  if (!pre) return;
  var src = pre.getAttribute('data-src');
  var status = document.getElementById('job-status');
  function poll() {
    fetch(src, {credentials: 'same-origin', cache: 'no-store'}).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      var done = r.headers.get('X-Job-Status') === 'completed';
      return r.text().then(function (t) {
        var end = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
        pre.textContent = t;
        pre.hidden = false;
        if (end) pre.scrollTop = pre.scrollHeight;
        if (done) { location.reload(); return; }
        if (status) status.textContent = r.headers.get('X-Job-Status') || status.textContent;
        setTimeout(poll, 1500);
      });
    }).catch(function () { setTimeout(poll, 5000); });
  }
  poll();
})();
