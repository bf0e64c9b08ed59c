// Product admin form: show only the details fieldset of the chosen type.
"use strict";
document.addEventListener("DOMContentLoaded", function () {
  const type = document.getElementById("id_type");
  if (!type) return;
  const prefixes = {"Audio Album": "album", "Film": "film", "TV Season": "season"};
  function show() {
    document.querySelectorAll("fieldset.product-details").forEach(function (fieldset) {
      fieldset.hidden = !fieldset.classList.contains("details-" + prefixes[type.value]);
    });
  }
  type.addEventListener("change", show);
  show();
});
