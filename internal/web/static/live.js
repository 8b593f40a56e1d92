// hubd's live views, the pages' only script (served from this site, so
// the pages' CSP allows it where a view is live). Each view polls a small
// document of the same origin with the browser's session:
// - a running job's page (#live-log): the job's raw log as it grows; the
//   page reloads once the job completed, to draw each step's log;
// - an open pull request (data-live-checks): its head's checks, with the
//   tail of the log of each workflow job in progress;
// - a running workflow run (data-live-jobs): its jobs, with the tail of
//   each running job's log; the page reloads once the run completed.
(function () {
  'use strict';
  function poll(src, every, handle) {
    function tick() {
      fetch(src, {credentials: 'same-origin', cache: 'no-store'}).then(function (r) {
        if (!r.ok) throw new Error(r.status);
        return handle(r);
      }).then(function (next) {
        if (next !== false) setTimeout(tick, typeof next === 'number' ? next : every);
      }).catch(function () { setTimeout(tick, 5000); });
    }
    tick();
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function link(href, text, strong) {
    var a = el('a');
    a.href = href;
    if (strong) a.appendChild(el('strong', null, text)); else a.textContent = text;
    return a;
  }
  // tail keeps the last lines of a log.
  function tail(text, n) {
    var lines = text.replace(/\n$/, '').split('\n');
    return lines.slice(Math.max(0, lines.length - n)).join('\n');
  }
  // logs fills each <pre data-log> under root with the tail of its log.
  function logs(root) {
    var pres = root.querySelectorAll('pre[data-log]');
    return Promise.all(Array.prototype.map.call(pres, function (pre) {
      return fetch(pre.getAttribute('data-log'), {credentials: 'same-origin', cache: 'no-store'}).then(function (r) {
        return r.ok ? r.text() : '';
      }).then(function (t) { pre.textContent = tail(t, 40); pre.hidden = t === ''; });
    }));
  }
  function logPre(src) {
    var pre = el('pre', 'log live-tail');
    pre.setAttribute('data-log', src);
    pre.hidden = true;
    return pre;
  }

  var pre = document.getElementById('live-log');
  if (pre) {
    var status = document.getElementById('job-status');
    poll(pre.getAttribute('data-src'), 1500, function (r) {
      var done = r.headers.get('X-Job-Status') === 'completed';
      return r.text().then(function (t) {
        var end = pre.scrollTop + pre.clientHeight >= pre.scrollHeight - 4;
        pre.textContent = t;
        pre.hidden = false;
        if (end) pre.scrollTop = pre.scrollHeight;
        if (done) { location.reload(); return false; }
        if (status) status.textContent = r.headers.get('X-Job-Status') || status.textContent;
      });
    });
  }

  var checks = document.querySelector('[data-live-checks]');
  if (checks) {
    var sum = checks.querySelector('.live-sum'), rows = checks.querySelector('.live-rows');
    poll(checks.getAttribute('data-live-checks'), 1500, function (r) {
      return r.json().then(function (d) {
        var box = document.createDocumentFragment(), pending = false;
        d.checks.forEach(function (c) {
          var row = el('div', 'check');
          row.appendChild(el('span', 's-' + c.state, c.state));
          row.appendChild(document.createTextNode(' '));
          row.appendChild(c.href ? link(c.href, c.name) : document.createTextNode(c.name));
          box.appendChild(row);
          if (c.log) box.appendChild(logPre(c.log));
          if (/^(queued|in_progress|pending|waiting|requested)$/.test(c.state)) pending = true;
        });
        rows.replaceChildren(box);
        sum.textContent = d.summary;
        checks.hidden = d.checks.length === 0;
        if (!d.open) return false;
        return logs(rows).then(function () { return pending ? 1500 : 4000; });
      });
    });
  }

  var jobs = document.querySelector('[data-live-jobs]');
  if (jobs) {
    var jrows = jobs.querySelector('.live-rows'), runStatus = document.getElementById('run-status');
    poll(jobs.getAttribute('data-live-jobs'), 1500, function (r) {
      return r.json().then(function (d) {
        if (d.status === 'completed') { location.reload(); return false; }
        var box = document.createDocumentFragment();
        d.jobs.forEach(function (j) {
          var row = el('div', 'job'), state = j.conclusion || j.status;
          row.appendChild(el('span', 'runstate ' + j.status + (j.conclusion ? ' ' + j.conclusion : ''), state));
          row.appendChild(document.createTextNode(' '));
          row.appendChild(link(j.href, j.name, true));
          if (j.log) row.appendChild(logPre(j.log));
          box.appendChild(row);
        });
        if (!d.jobs.length) box.appendChild(el('div', 'meta', 'No jobs.'));
        jrows.replaceChildren(box);
        if (runStatus) runStatus.textContent = d.status;
        return logs(jrows);
      });
    });
  }
})();
