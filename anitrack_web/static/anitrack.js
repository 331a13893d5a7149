// Small conveniences for anitrack's pages; every page works without them.
(function () {
  "use strict";
  // Copy buttons: <button class="copy-button" data-copy="#input-id" hidden>
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var target = document.querySelector(button.getAttribute("data-copy"));
    if (!target || !navigator.clipboard) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(target.value).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 2000);
      }, function () {
        target.select();
      });
    });
  });
  // Forms that change something irreversible ask first: <form data-confirm="Delete?">
  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      if (!window.confirm(form.getAttribute("data-confirm"))) { event.preventDefault(); }
    });
  });
})();
