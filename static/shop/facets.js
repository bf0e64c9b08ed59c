// Facets: submit the filter form as soon as a box is ticked or cleared. Without
// JavaScript the form's Apply button does the same (GET, the choice in the URL).
(function () {
  "use strict";
  var forms = document.querySelectorAll("form[data-auto-submit]");
  Array.prototype.forEach.call(forms, function (form) {
    form.addEventListener("change", function (event) {
      if (event.target && event.target.type === "checkbox") { form.submit(); }
    });
  });
}());
