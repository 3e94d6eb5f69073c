// einvoice dashboard: passkeys (WebAuthn), the one part of the dashboard
// that needs script, as the browser's passkeys are an API. On the account
// page it adds a passkey (navigator.credentials.create); on the sign-in page
// it signs in with one (navigator.credentials.get, no e-mail asked). Each
// ceremony posts a form (with the page's CSRF token, as every form does) for
// its options, then the browser's answer as JSON in the field "credential";
// the server answers JSON: {"redirect": path}, or {"message": why not}.
(function () {
  "use strict";
  if (!window.PublicKeyCredential || !navigator.credentials || !window.fetch) { return; }

  function bytes(s) { // base64url -> ArrayBuffer
    var b = atob(s.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((s.length + 3) % 4));
    var out = new Uint8Array(b.length);
    for (var i = 0; i < b.length; i++) { out[i] = b.charCodeAt(i); }
    return out.buffer;
  }
  function b64url(buf) { // ArrayBuffer -> base64url
    var a = new Uint8Array(buf), s = "";
    for (var i = 0; i < a.length; i++) { s += String.fromCharCode(a[i]); }
    return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function withIDs(list) {
    return (list || []).map(function (c) { return Object.assign({}, c, { id: bytes(c.id) }); });
  }

  // post sends the fields as a form and resolves to the JSON answer; a
  // refusal rejects with its message.
  function post(url, fields) {
    return fetch(url, {
      method: "POST", credentials: "same-origin", body: new URLSearchParams(fields),
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json" }
    }).then(function (resp) {
      var json = (resp.headers.get("Content-Type") || "").indexOf("application/json") === 0;
      if (!json) { throw new Error("This page is out of date: reload it and try again."); }
      return resp.json().then(function (body) {
        if (!resp.ok) { throw new Error(body.message || "Not done: try again."); }
        return body;
      });
    });
  }

  // answer is the JSON of a PublicKeyCredential, as the server reads it.
  function answer(cred) {
    var r = cred.response, out = {
      id: cred.id, rawId: b64url(cred.rawId), type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: { clientDataJSON: b64url(r.clientDataJSON) }
    };
    if (cred.authenticatorAttachment) { out.authenticatorAttachment = cred.authenticatorAttachment; }
    if (r.attestationObject) {
      out.response.attestationObject = b64url(r.attestationObject);
      out.response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      out.response.authenticatorData = b64url(r.authenticatorData);
      out.response.signature = b64url(r.signature);
      if (r.userHandle) { out.response.userHandle = b64url(r.userHandle); }
    }
    return JSON.stringify(out);
  }

  function why(err) {
    if (err && err.name === "NotAllowedError") { return "No passkey was used (cancelled, or it took too long)."; }
    if (err && err.name === "InvalidStateError") { return "This device already holds one of your passkeys."; }
    if (err && err.name === "SecurityError") { return "Passkeys need the dashboard at a host name over https (or localhost)."; }
    return (err && err.message) || "Not done: try again.";
  }
  function show(el, msg) { el.textContent = msg; el.hidden = !msg; }

  // The account page: add a passkey.
  var add = document.getElementById("passkey-add");
  if (add) {
    var addError = document.getElementById("passkey-add-error");
    var unsupported = document.getElementById("passkey-unsupported");
    add.hidden = false;
    if (unsupported) { unsupported.hidden = true; }
    add.addEventListener("submit", function (ev) {
      ev.preventDefault();
      show(addError, "");
      var csrf = add.elements.csrf.value, name = add.elements.name.value;
      var button = add.querySelector("button");
      button.disabled = true;
      post(add.getAttribute("data-options"), { csrf: csrf }).then(function (opts) {
        var pk = Object.assign({}, opts.publicKey);
        pk.challenge = bytes(pk.challenge);
        pk.user = Object.assign({}, pk.user, { id: bytes(pk.user.id) });
        pk.excludeCredentials = withIDs(pk.excludeCredentials);
        return navigator.credentials.create({ publicKey: pk });
      }).then(function (cred) {
        return post(add.getAttribute("data-finish"), { csrf: csrf, name: name, credential: answer(cred) });
      }).then(function (done) {
        window.location.assign(done.redirect);
      }).catch(function (err) {
        show(addError, why(err));
        button.disabled = false;
      });
    });
  }

  // The sign-in page: sign in with a passkey alone.
  var signin = document.getElementById("passkey-signin");
  if (signin) {
    var signinError = document.getElementById("passkey-signin-error");
    var go = document.getElementById("passkey-signin-button");
    signin.hidden = false;
    go.addEventListener("click", function () {
      show(signinError, "");
      go.disabled = true;
      var csrf = signin.getAttribute("data-csrf");
      post(signin.getAttribute("data-options"), { csrf: csrf }).then(function (opts) {
        var pk = Object.assign({}, opts.publicKey);
        pk.challenge = bytes(pk.challenge);
        pk.allowCredentials = withIDs(pk.allowCredentials);
        return navigator.credentials.get({ publicKey: pk });
      }).then(function (cred) {
        return post(signin.getAttribute("data-finish"), { csrf: csrf, next: signin.getAttribute("data-next"), credential: answer(cred) });
      }).then(function (done) {
        window.location.assign(done.redirect);
      }).catch(function (err) {
        show(signinError, why(err));
        go.disabled = false;
      });
    });
  }
})();
