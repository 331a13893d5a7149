"""Checking scaled out on Celery: ``anitrack scheduler`` enqueues, any number of ``anitrack worker`` check.

* :mod:`.app`: the Celery application (late acknowledgement, prefetch 1, no result backend);
* :mod:`.scheduler`: one active scheduler (a database lease) claims due projects and enqueues them in batches;
* :mod:`.worker`: a worker checks a batch with the in-process pass's code and deletes each claim in the
  transaction that stores its check;
* :mod:`.limits`: per-host slots and rate-limit pauses shared by every worker;
* :mod:`.models`: the claims, pauses and heartbeats (migration 0010).

Celery is imported only here: ``anitrack serve`` alone never needs it.
"""

#: projects per task: fewer messages, claims and transactions per check than smaller batches, and short enough
#: to keep a worker's fetching busy (bench/scale.py, 0 ms upstream, 2 workers: 25 made 1,088-1,166 checks/s,
#: 50 made 1,300)
BATCH_SIZE = 50
