// Progressive enhancement of the catalogue page: the server has already
// applied the filter of the URL; this re-applies it as the form changes, so
// filtering needs no round trip. Without this script the form submits.
(function () {
  "use strict";
  var form = document.getElementById("filters");
  if (!form || !window.history || !document.querySelectorAll) return;
  var STATUSES = ["supported", "partial", "unsupported", "never"];
  var LABELS = { supported: "Supported", partial: "Partial", unsupported: "Planned", never: "Never" };
  var total = parseInt(document.body.getAttribute("data-total"), 10) || 0;
  var each = function (list, fn) { Array.prototype.forEach.call(list, fn); };
  var map = function (list, fn) { return Array.prototype.map.call(list, fn); };
  var text = function (el) { return el ? el.textContent : ""; };

  // The model: categories > subcategories > rows, read once from the DOM.
  var cats = map(document.querySelectorAll("details.cat"), function (d) {
    var ctext = d.getAttribute("data-cat") + " " + text(d.querySelector(".ctitle"));
    var cat = d.getAttribute("data-cat");
    return {
      el: d,
      subs: map(d.querySelectorAll("tbody[data-sub]"), function (tb) {
        var stext = tb.getAttribute("data-sub") + " " + text(tb.querySelector(".stitle"));
        return {
          el: tb,
          rows: map(tb.querySelectorAll("tr.op"), function (tr) {
            return {
              el: tr,
              cat: cat,
              status: tr.getAttribute("data-status"),
              tokens: tr.getAttribute("data-tokens").split(" ").filter(Boolean),
              flavours: tr.getAttribute("data-flavours").split(" "),
              text: [text(tr.querySelector(".m")), text(tr.querySelector(".p")), text(tr.querySelector(".t")), ctext, stext].join(" ").toLowerCase()
            };
          })
        };
      })
    };
  });

  function zero() { return { supported: 0, partial: 0, unsupported: 0, never: 0, total: 0 }; }
  function add(c, s) { c[LABELS[s] ? s : "unsupported"]++; c.total++; }
  function sum(into, c) { STATUSES.forEach(function (s) { into[s] += c[s]; }); into.total += c.total; }
  function fmt(n) { return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }

  function paintBadges(root, c, hideZero) {
    if (!root) return;
    each(root.querySelectorAll(".b[data-status]"), function (b) {
      var s = b.getAttribute("data-status"), n = c[s];
      b.textContent = LABELS[s] + ": " + n;
      if (hideZero) b.hidden = n === 0;
    });
  }
  function paintBar(bar, c) {
    if (!bar) return;
    each(bar.querySelectorAll("i[data-status]"), function (i) {
      i.style.width = (c.total ? (c[i.getAttribute("data-status")] * 100) / c.total : 0) + "%";
    });
  }

  function read() {
    return {
      status: form.elements.status.value,
      category: form.elements.category.value,
      token: form.elements.token.value,
      flavour: form.elements.flavour.value,
      q: form.elements.q.value.trim(),
      words: form.elements.q.value.toLowerCase().split(/\s+/).filter(Boolean)
    };
  }
  function match(f, r) {
    if (f.status && r.status !== f.status) return false;
    if (f.category && r.cat !== f.category) return false;
    if (f.token === "none" ? r.tokens.length > 0 : f.token && r.tokens.indexOf(f.token) < 0) return false;
    if (f.flavour && r.flavours.indexOf(f.flavour) < 0) return false;
    for (var i = 0; i < f.words.length; i++) if (r.text.indexOf(f.words[i]) < 0) return false;
    return true;
  }

  var wasActive = null;
  function apply() {
    var f = read();
    var active = !!(f.status || f.category || f.token || f.flavour || f.words.length);
    var all = zero();
    cats.forEach(function (cat) {
      var cc = zero();
      cat.subs.forEach(function (sub) {
        var sc = zero();
        sub.rows.forEach(function (r) {
          var ok = match(f, r);
          r.el.hidden = !ok;
          if (ok) add(sc, r.status);
        });
        sub.el.hidden = sc.total === 0;
        paintBadges(sub.el.querySelector(".subhead"), sc, true);
        sum(cc, sc);
      });
      cat.el.hidden = cc.total === 0;
      if (active) cat.el.open = cc.total > 0;
      else if (wasActive) cat.el.open = false;
      var summary = cat.el.querySelector("summary");
      summary.querySelector(".ccount .n").textContent = fmt(cc.total);
      paintBadges(summary, cc, true);
      paintBar(summary.querySelector(".bar"), cc);
      sum(all, cc);
    });
    wasActive = active;
    document.getElementById("shown-total").textContent = fmt(all.total);
    document.getElementById("shown-of").textContent = active ? "of " + fmt(total) + " operations match the filter" : "operations";
    document.getElementById("groups-note").textContent = active ? "Categories with a match are open." : "Open a category to see its operations, or filter.";
    paintBadges(document.getElementById("summary-badges"), all, false);
    paintBar(document.getElementById("summary-bar"), all);
    document.getElementById("empty").hidden = all.total > 0;

    var params = [];
    ["status", "category", "token", "flavour", "q"].forEach(function (k) {
      if (f[k]) params.push(k + "=" + encodeURIComponent(f[k]));
    });
    history.replaceState(null, "", params.length ? "?" + params.join("&") : location.pathname);
  }

  var timer;
  form.addEventListener("change", apply);
  form.addEventListener("input", function (ev) {
    if (ev.target.name !== "q") return;
    clearTimeout(timer);
    timer = setTimeout(apply, 120);
  });
  form.addEventListener("submit", function (ev) { ev.preventDefault(); apply(); });
  each(document.querySelectorAll('a.reset, #empty a[href="?"]'), function (a) {
    a.addEventListener("click", function (ev) {
      ev.preventDefault();
      ["status", "category", "token", "flavour", "q"].forEach(function (k) { form.elements[k].value = ""; });
      apply();
    });
  });

  each(document.querySelectorAll(".js-only"), function (el) { el.hidden = false; });
  var expand = document.querySelector("[data-expand]"), collapse = document.querySelector("[data-collapse]");
  if (expand) expand.addEventListener("click", function () { cats.forEach(function (c) { if (!c.el.hidden) c.el.open = true; }); });
  if (collapse) collapse.addEventListener("click", function () { cats.forEach(function (c) { c.el.open = false; }); });

  wasActive = !!(form.elements.status.value || form.elements.category.value || form.elements.token.value || form.elements.flavour.value || form.elements.q.value.trim());
  document.body.setAttribute("data-ready", "1");
})();
