"""Webhooks: a user's subscriptions to events, delivered by signed HTTP POST.

:mod:`.subscriptions` creates, lists and deletes subscriptions (what the API
and the settings page call); :mod:`.relay` reads the outbox, matches each
event against the subscriptions and delivers it, signed as the Standard
Webhooks specification says, at least once and in order per subscription.
See docs/notifications.md.
"""
