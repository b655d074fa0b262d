"""The mechanisms behind ``pedelec.session.Session``, one concern a module.

``registry`` holds the tools and their handlers, ``runners`` runs a handler under its deadline
and ``end()``, ``outcome`` turns what a handler did into a ``ToolResult``, and ``events`` calls
the developer's callbacks. Imports point down that list; nothing here is public.
``declaring`` and ``observing`` hold the methods ``Session`` inherits: declaring tools and
manifests, and its status, callbacks and ``end()``.
"""
