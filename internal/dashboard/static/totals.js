// einvoice dashboard: the totals of the document form as one types. The
// server computes them (the API's autoCalculate); this posts the form to
// its preview address and puts the answer in place. Without script the
// form's "Compute totals" button does the same by a full POST.
(function () {
  "use strict";
  var form = document.getElementById("doc-form");
  if (!form || !window.fetch) { return; }
  var timer = null, seq = 0;
  function refresh() {
    var mine = ++seq;
    var body = new URLSearchParams(new FormData(form));
    fetch(form.getAttribute("data-preview"), {
      method: "POST", body: body, credentials: "same-origin",
      headers: { "Content-Type": "application/x-www-form-urlencoded" }
    }).then(function (resp) {
      if (!resp.ok) { throw new Error("preview " + resp.status); }
      return resp.text();
    }).then(function (html) {
      if (mine !== seq) { return; }
      var old = document.getElementById("totals");
      var tpl = document.createElement("template");
      tpl.innerHTML = html.trim();
      var fresh = tpl.content.getElementById("totals");
      if (old && fresh) { old.replaceWith(fresh); }
    }).catch(function () { /* the Compute totals button still works */ });
  }
  function later() {
    clearTimeout(timer);
    timer = setTimeout(refresh, 250);
  }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
})();
