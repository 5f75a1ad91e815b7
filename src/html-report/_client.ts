/**
 * The page's own script (plain ES2017, no template literals so it can live in this string): reads the embedded JSON,
 * draws the charts with Chart.js, renders the messages with their highlights and the item lists, and wires the kind
 * filters and the links. Transcript text only ever reaches the page through `textContent`.
 */
export const CLIENT_SCRIPT = String.raw`(function () {
  'use strict';
  var dataElement = document.getElementById('floorguard-data');
  var DATA = JSON.parse(dataElement ? dataElement.textContent : '{}');
  var ROLES = { system: 1, user: 1, assistant: 1, tool: 1 };
  var aliases = {};

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function fmt(value) {
    return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
  }
  function kindClass(kind) {
    return /^[a-z][a-z-]*$/.test(kind) ? 'k-' + kind : 'k-other';
  }
  function link(text, target, anchor) {
    var a = el('a', 'goto', text);
    a.setAttribute('href', '#' + anchor);
    a.setAttribute('data-goto', target);
    return a;
  }
  function shortTokens(value) {
    if (value >= 1000000) return (value / 1000000).toFixed(value >= 10000000 ? 0 : 1) + 'M';
    if (value >= 1000) return (value / 1000).toFixed(value >= 10000 ? 0 : 1) + 'k';
    return String(value);
  }

  function reveal(target) {
    for (var node = target; node; node = node.parentElement) {
      if (node.tagName === 'DETAILS') node.open = true;
    }
  }
  function goto(id) {
    var target = document.getElementById(id) || (aliases[id] ? document.getElementById(aliases[id]) : null);
    if (!target) return false;
    reveal(target);
    target.scrollIntoView({ block: 'center' });
    target.classList.remove('flash');
    void target.offsetWidth;
    target.classList.add('flash');
    return true;
  }
  document.addEventListener('click', function (event) {
    var anchor = event.target && event.target.closest ? event.target.closest('a[data-goto]') : null;
    if (anchor && goto(anchor.getAttribute('data-goto'))) event.preventDefault();
  });

  function renderMessages(session) {
    var container = document.getElementById(session.id + '-messages');
    if (!container) return;
    var byMessage = {};
    function add(index, mark) {
      (byMessage[index] = byMessage[index] || []).push(mark);
    }
    session.items.forEach(function (item, index) {
      add(item.message, { start: item.start, end: item.end, id: session.id + '-i' + index, kind: item.kind, reuse: false,
        title: item.kind + ' · ' + item.tokens + ' tokens' });
    });
    session.reuses.forEach(function (reuse, index) {
      var compaction = session.compactions[reuse.compaction];
      add(reuse.message, { start: reuse.start, end: reuse.end, id: session.id + '-u' + index, kind: null, reuse: true,
        title: 'lost by the summary at #' + (compaction ? compaction.message : '?') + ', used again here' });
    });
    var fragment = document.createDocumentFragment();
    session.messages.forEach(function (message) {
      var messageId = session.id + '-m' + message.index;
      var role = ROLES[message.role] ? message.role : 'other';
      var details = el('details', 'message role-' + role + (message.summary !== undefined ? ' is-summary' : ''));
      details.id = messageId;
      if (message.text.length <= 1200 && message.summary === undefined) details.open = true;
      var head = el('summary', 'message-head');
      head.appendChild(el('span', 'index', '#' + message.index));
      head.appendChild(el('span', 'role', message.summary !== undefined ? 'summary · ' + message.summary : message.role));
      head.appendChild(el('span', 'numbers', fmt(message.tokens) + ' tokens' + (message.irreducible ? ' · ' + fmt(message.irreducible) + ' irreducible' : '') +
        (message.line !== undefined ? ' · line ' + message.line : '')));
      head.appendChild(el('span', 'preview', message.text.slice(0, 160).replace(/\s+/g, ' ')));
      details.appendChild(head);
      var body = el('pre', 'message-text');
      var marks = (byMessage[message.index] || []).sort(function (a, b) {
        return a.start - b.start || b.end - a.end || (a.reuse ? 1 : 0) - (b.reuse ? 1 : 0);
      });
      var cursor = 0;
      var last = null;
      marks.forEach(function (mark) {
        if (mark.end > message.text.length || mark.start >= mark.end) {
          aliases[mark.id] = messageId;
          return;
        }
        if (mark.start < cursor && last) {
          aliases[mark.id] = last.id;
          if (mark.reuse && !last.classList.contains('reuse')) {
            last.classList.add('reuse');
            last.title += ' · ' + mark.title;
          }
          return;
        }
        if (mark.start > cursor) body.appendChild(document.createTextNode(message.text.slice(cursor, mark.start)));
        var node = el('mark', mark.reuse ? 'reuse' : 'item ' + kindClass(mark.kind), message.text.slice(mark.start, mark.end));
        node.id = mark.id;
        node.title = mark.title;
        if (mark.kind !== null) {
          node.setAttribute('data-kind', mark.kind);
        }
        body.appendChild(node);
        cursor = mark.end;
        last = node;
      });
      if (cursor < message.text.length) body.appendChild(document.createTextNode(message.text.slice(cursor)));
      details.appendChild(body);
      if (message.omitted > 0) {
        details.appendChild(el('p', 'truncated', 'truncated: ' + fmt(message.omitted) + ' more characters not shown (the page keeps the first ' +
          fmt(session.messageChars) + ' of each message)'));
      }
      fragment.appendChild(details);
    });
    container.appendChild(fragment);
  }

  function renderItems(session) {
    var body = document.getElementById(session.id + '-items');
    if (!body) return;
    var fragment = document.createDocumentFragment();
    session.items.forEach(function (item, index) {
      var row = el('tr', 'item-row');
      row.setAttribute('data-kind', item.kind);
      var kind = el('td');
      var badge = el('span', 'badge ' + kindClass(item.kind), item.kind);
      kind.appendChild(badge);
      row.appendChild(kind);
      var text = el('td', 'item-text');
      text.appendChild(el('code', null, item.text));
      if (item.clipped) text.appendChild(el('span', 'note', ' … ' + fmt(item.clipped) + ' more characters'));
      row.appendChild(text);
      row.appendChild(el('td', 'num', fmt(item.tokens)));
      var where = el('td', 'num');
      where.appendChild(link('#' + item.message, session.id + '-i' + index, session.id + '-m' + item.message));
      row.appendChild(where);
      fragment.appendChild(row);
    });
    body.appendChild(fragment);
  }

  function wireFilters(session) {
    var section = document.getElementById(session.id);
    if (!section) return;
    var boxes = Array.prototype.slice.call(section.querySelectorAll('input.kind-filter'));
    var counter = section.querySelector('.filter-count');
    function apply() {
      var shown = {};
      boxes.forEach(function (box) {
        shown[box.getAttribute('data-kind')] = box.checked;
      });
      var visible = 0;
      Array.prototype.forEach.call(section.querySelectorAll('[data-kind]'), function (node) {
        if (node.tagName === 'INPUT') return;
        var on = shown[node.getAttribute('data-kind')] !== false;
        if (node.tagName === 'TR') {
          node.hidden = !on;
          if (on) visible++;
        } else node.classList.toggle('off', !on);
      });
      if (counter) counter.textContent = fmt(visible) + ' of ' + fmt(session.items.length) + ' listed items shown';
    }
    boxes.forEach(function (box) {
      box.addEventListener('change', apply);
    });
    Array.prototype.forEach.call(section.querySelectorAll('button[data-filter]'), function (button) {
      button.addEventListener('click', function () {
        var all = button.getAttribute('data-filter') === 'all';
        boxes.forEach(function (box) {
          box.checked = all;
        });
        apply();
      });
    });
    apply();
  }

  function markerPlugin(markers) {
    return {
      id: 'floorguardMarkers',
      afterDatasetsDraw: function (chart) {
        var x = chart.scales.x;
        var area = chart.chartArea;
        var ctx = chart.ctx;
        markers.forEach(function (marker, index) {
          var px = x.getPixelForValue(marker.bin);
          ctx.save();
          ctx.strokeStyle = marker.color;
          ctx.lineWidth = 2;
          ctx.setLineDash([5, 3]);
          ctx.beginPath();
          ctx.moveTo(px, area.top);
          ctx.lineTo(px, area.bottom);
          ctx.stroke();
          ctx.setLineDash([]);
          ctx.font = '600 11px system-ui, sans-serif';
          var width = ctx.measureText(marker.label).width;
          var y = area.top + 4 + (index % 3) * 16;
          var left = Math.min(px + 3, area.right - width - 6);
          ctx.fillStyle = 'rgba(255,255,255,0.85)';
          ctx.fillRect(left - 2, y - 1, width + 6, 14);
          ctx.fillStyle = marker.color;
          ctx.textBaseline = 'top';
          ctx.fillText(marker.label, left + 1, y);
          ctx.restore();
        });
      }
    };
  }

  function renderTimeline(session) {
    var canvas = document.getElementById(session.id + '-chart');
    if (!canvas || typeof Chart === 'undefined' || session.messages.length === 0) return;
    var count = session.messages.length;
    var binSize = count > 800 ? Math.ceil(count / 400) : 1;
    var labels = [], other = [], irreducible = [], context = [], floor = [], slot = [], water = [];
    var highWater = Math.round(session.highWaterMark * session.budget);
    for (var start = 0; start < count; start += binSize) {
      var end = Math.min(count, start + binSize);
      var tokens = 0, items = 0, lastContext = 0, lastFloor = 0;
      for (var index = start; index < end; index++) {
        var message = session.messages[index];
        tokens += message.tokens;
        items += Math.min(message.irreducible, message.tokens);
        lastContext = Math.max(lastContext, message.context);
        lastFloor = Math.max(lastFloor, message.floor);
      }
      labels.push(binSize === 1 ? '#' + session.messages[start].index : '#' + session.messages[start].index + '–' + session.messages[end - 1].index);
      irreducible.push(items);
      other.push(tokens - items);
      context.push(Math.max(1, lastContext));
      floor.push(Math.max(1, lastFloor));
      slot.push(session.slot);
      water.push(highWater);
    }
    var markers = [];
    session.compactions.forEach(function (compaction) {
      var survival = compaction.audit && compaction.audit.survival !== null ? ' ' + (compaction.audit.survival * 100).toFixed(1) + '% kept' : '';
      markers.push({ bin: Math.floor(compaction.message / binSize), color: '#c92a2a', label: 'summary #' + compaction.message + survival });
    });
    session.cuts.forEach(function (cut) {
      markers.push({ bin: Math.floor(cut.at / binSize), color: cut.decision === 'refuse' ? '#e8590c' : '#5c7cfa', label: 'high-water #' + cut.at + ': ' + cut.decision });
    });
    var chart = new Chart(canvas, {
      data: {
        labels: labels,
        datasets: [
          { type: 'bar', label: 'irreducible tokens', data: irreducible, backgroundColor: '#e8590c', stack: 'tokens', yAxisID: 'y', order: 3 },
          { type: 'bar', label: 'other tokens', data: other, backgroundColor: '#a5d8ff', stack: 'tokens', yAxisID: 'y', order: 4 },
          { type: 'line', label: 'context since last compaction', data: context, borderColor: '#1864ab', backgroundColor: '#1864ab', borderWidth: 2,
            pointRadius: 0, yAxisID: 'y2', order: 1, stepped: true },
          { type: 'line', label: 'irreducible since last compaction', data: floor, borderColor: '#c92a2a', backgroundColor: '#c92a2a', borderWidth: 2,
            pointRadius: 0, yAxisID: 'y2', order: 2, stepped: true },
          { type: 'line', label: 'slot ' + fmt(session.slot), data: slot, borderColor: '#c92a2a', borderDash: [6, 4], borderWidth: 1.5, pointRadius: 0,
            yAxisID: 'y2', order: 0 },
          { type: 'line', label: 'high-water ' + fmt(highWater), data: water, borderColor: '#495057', borderDash: [2, 3], borderWidth: 1.5, pointRadius: 0,
            yAxisID: 'y2', order: 0 }
        ]
      },
      options: {
        animation: false,
        responsive: true,
        maintainAspectRatio: false,
        interaction: { mode: 'index', intersect: false },
        scales: {
          x: { stacked: true, ticks: { maxTicksLimit: 16, autoSkip: true, maxRotation: 0 }, grid: { display: false } },
          y: { stacked: true, beginAtZero: true, position: 'left', title: { display: true, text: 'tokens per message' + (binSize > 1 ? ' (' + binSize + ' per bar)' : '') },
            ticks: { callback: function (value) { return shortTokens(value); } } },
          y2: { type: 'logarithmic', position: 'right', title: { display: true, text: 'since last compaction (log)' }, grid: { drawOnChartArea: false },
            ticks: { callback: function (value) { var exponent = Math.log10(value); return Math.abs(exponent - Math.round(exponent)) < 1e-9 ? shortTokens(value) : ''; } } }
        },
        plugins: {
          legend: { position: 'bottom', labels: { boxWidth: 14, sort: function (a, b) { return a.datasetIndex - b.datasetIndex; } } },
          tooltip: { callbacks: { title: function (items) { return items.length ? 'messages ' + labels[items[0].dataIndex] : ''; } } }
        },
        onClick: function (event, elements) {
          if (elements.length) goto(session.id + '-m' + session.messages[Math.min(count - 1, elements[0].index * binSize)].index);
        }
      },
      plugins: [markerPlugin(markers)]
    });
    canvas.setAttribute('data-chart', 'ready');
    return chart;
  }

  function errorBarPlugin(intervals) {
    return {
      id: 'floorguardIntervals',
      afterDatasetsDraw: function (chart) {
        var ctx = chart.ctx;
        chart.data.datasets.forEach(function (dataset, datasetIndex) {
          var meta = chart.getDatasetMeta(datasetIndex);
          var bounds = intervals[datasetIndex] || [];
          meta.data.forEach(function (bar, index) {
            var interval = bounds[index];
            if (!interval) return;
            var low = chart.scales.y.getPixelForValue(interval[0]);
            var high = chart.scales.y.getPixelForValue(interval[1]);
            ctx.save();
            ctx.strokeStyle = '#212529';
            ctx.lineWidth = 1.2;
            ctx.beginPath();
            ctx.moveTo(bar.x, low);
            ctx.lineTo(bar.x, high);
            ctx.moveTo(bar.x - 4, low);
            ctx.lineTo(bar.x + 4, low);
            ctx.moveTo(bar.x - 4, high);
            ctx.lineTo(bar.x + 4, high);
            ctx.stroke();
            ctx.restore();
          });
        });
      }
    };
  }

  function renderCharts(charts) {
    charts.forEach(function (spec) {
      var canvas = document.getElementById(spec.id);
      if (!canvas || typeof Chart === 'undefined') return;
      new Chart(canvas, {
        type: 'bar',
        data: {
          labels: spec.labels,
          datasets: spec.datasets.map(function (dataset) {
            return { label: dataset.label, data: dataset.data, backgroundColor: dataset.color };
          })
        },
        options: {
          animation: false,
          responsive: true,
          maintainAspectRatio: false,
          scales: { y: { beginAtZero: true, max: spec.percent ? 100 : undefined, title: { display: !!spec.unit, text: spec.unit || '' } } },
          plugins: { legend: { position: 'bottom' }, title: { display: !!spec.title, text: spec.title || '' } }
        },
        plugins: [errorBarPlugin(spec.datasets.map(function (dataset) { return dataset.intervals || []; }))]
      });
      canvas.setAttribute('data-chart', 'ready');
    });
  }

  var timings = [];
  window.floorguardTimings = timings;
  var rendered = {};
  function timed(name, session, step) {
    var started = performance.now();
    step(session);
    timings.push({ step: name, session: session.id, ms: Math.round(performance.now() - started) });
  }
  function renderSession(session) {
    if (rendered[session.id]) return;
    rendered[session.id] = true;
    // The chart first: Chart.js measures its container, which lays the page out; before the message list exists that is cheap.
    timed('timeline', session, renderTimeline);
    timed('items', session, renderItems);
    timed('messages', session, renderMessages);
    timed('filters', session, wireFilters);
    var section = document.getElementById(session.id);
    if (section) section.setAttribute('data-rendered', '1');
  }
  var sessions = DATA.sessions || [];
  var byId = {};
  sessions.forEach(function (session) {
    byId[session.id] = session;
  });
  // A page of many sessions draws each one as it nears the viewport (a directory of hundreds stays quick to open);
  // the first one, and the one a link points into, are drawn at once.
  var wanted = location.hash.length > 1 ? /^s[0-9]+/.exec(decodeURIComponent(location.hash.slice(1))) : null;
  if (sessions.length > 0) renderSession(wanted && byId[wanted[0]] ? byId[wanted[0]] : sessions[0]);
  if (typeof IntersectionObserver === 'function') {
    var observer = new IntersectionObserver(function (entries) {
      entries.forEach(function (entry) {
        if (!entry.isIntersecting || !byId[entry.target.id]) return;
        observer.unobserve(entry.target);
        renderSession(byId[entry.target.id]);
      });
    }, { rootMargin: '800px 0px' });
    sessions.forEach(function (session) {
      var section = document.getElementById(session.id);
      if (section && !rendered[session.id]) observer.observe(section);
    });
  } else sessions.forEach(renderSession);
  document.addEventListener('click', function (event) {
    var anchor = event.target && event.target.closest ? event.target.closest('a[href^="#s"]') : null;
    var match = anchor ? /^#(s[0-9]+)/.exec(anchor.getAttribute('href')) : null;
    if (match && byId[match[1]]) renderSession(byId[match[1]]);
  }, true);
  renderCharts(DATA.charts || []);
  if (location.hash.length > 1) goto(decodeURIComponent(location.hash.slice(1)));
  document.documentElement.setAttribute('data-ready', '1');
})();
`
