(function () {
  var groups = ['verdict', 'severity', 'upstream', 'kind', 'course'];
  var boxes = Array.prototype.slice.call(document.querySelectorAll('input[data-filter]'));
  function apply() {
    var on = {};
    groups.forEach(function (g) { on[g] = {}; });
    boxes.forEach(function (b) { if (b.checked) on[b.dataset.filter][b.value] = true; });
    var n = {claim: [0, 0], finding: [0, 0]};
    document.querySelectorAll('.card').forEach(function (el) {
      var ok = groups.every(function (g) {
        var v = el.getAttribute('data-' + g);
        return v === null || on[g][v] === true;
      });
      el.hidden = !ok;
      n[el.dataset.type][1]++;
      if (ok) n[el.dataset.type][0]++;
    });
    // the lists at the top follow the filters: an entry is shown when its card is
    var listed = 0;
    document.querySelectorAll('#attention li, #cannot-check li').forEach(function (li) {
      var a = li.querySelector('a.where');
      var card = a && document.getElementById(a.getAttribute('href').slice(1));
      li.hidden = !!(card && card.hidden);
      if (!li.hidden && li.closest('#attention')) listed++;
    });
    document.body.setAttribute('data-shown-attention', String(listed));
    document.querySelectorAll('section.lesson').forEach(function (s) {
      var note = s.querySelector('.none-shown');
      if (note) note.hidden = !!s.querySelector('.card:not([hidden])');
    });
    document.getElementById('shown').textContent = n.claim[0] + ' of ' + n.claim[1] +
      ' claims, ' + n.finding[0] + ' of ' + n.finding[1] + ' lint findings shown';
    document.body.setAttribute('data-shown', String(n.claim[0]));
    document.body.setAttribute('data-shown-findings', String(n.finding[0]));
  }
  var hash = location.hash.replace(/^#/, '');
  if (hash.indexOf('=') > 0) {
    hash.split('&').forEach(function (part) {
      var kv = part.split('=');
      if (kv.length !== 2 || groups.indexOf(kv[0]) < 0) return;
      var vals = decodeURIComponent(kv[1]).split(',');
      boxes.forEach(function (b) {
        if (b.dataset.filter === kv[0]) b.checked = vals.indexOf(b.value) >= 0;
      });
    });
  }
  boxes.forEach(function (b) { b.addEventListener('change', apply); });
  apply();
})();
