"""Agent formats: a session's tools for OpenAI, Anthropic, Gemini and MCP, and their calls back.

One module per provider, each with the same two jobs, export and dispatch:

====================================  ==========================================================
``pedelec.adapters.openai``           ``chat_tools(session)``, ``responses_tools(session)``,
                                      ``await dispatch_tool_calls(session, message.tool_calls)``,
                                      ``await dispatch_responses_calls(session, response.output)``
``pedelec.adapters.anthropic``        ``tools(session)``,
                                      ``await dispatch_tool_uses(session, message.content)``
``pedelec.adapters.gemini``           ``function_declarations(session)``,
                                      ``await dispatch_function_calls(session, function_calls)``
``pedelec.adapters.mcp``              ``tools(session)``,
                                      ``await dispatch_tool_call(session, name, arguments)``
``pedelec.adapters.agents``           ``function_tools(session)``: OpenAI Agents SDK tools
``pedelec.adapters.pydantic_ai``      ``toolset(session)``: a Pydantic AI toolset
====================================  ==========================================================

Every dispatcher has a ``_sync`` twin for code without an event loop. Dispatchers take the
official SDKs' objects or plain dicts, run several calls concurrently, answer them in order,
and turn a malformed call into an error result for that call instead of raising.

Tool names: OpenAI and Anthropic accept ``^[a-zA-Z0-9_-]{1,64}$``. A ``.`` in a pedelec tool
name is sent as ``__`` (``editor.replace_selection`` → ``editor__replace_selection``) and
mapped back by the dispatchers. When two tools would be sent under the same name, or a sent
name is longer than 64 characters, exporting raises ``PedelecError(INVALID_INPUT)`` naming the
tools. Gemini's rule (a letter or ``_`` first, then ``a-zA-Z0-9_.:-``, at most 64 characters)
takes every pedelec name short enough as it is, and MCP any name: both keep names unchanged.

Strict mode: the OpenAI, Anthropic and framework exports take ``strict=True | False |
"auto"`` (default ``"auto"``: strict wherever the schema can be translated exactly); their
dispatchers read a ``null`` for an optional property as "absent", and every keyword a strict
schema leaves out is still enforced. Error messages produced through an adapter name tools by
the names that adapter exported.

The two framework adapters build the framework's own tool objects, whose calls go through
``session.dispatch``; the framework runs the agent loop.

Importing these modules imports no vendor package; only ``gemini``'s ``sdk=True`` loads
``google-genai``, and ``agents.function_tools`` / ``pydantic_ai.toolset`` load their framework,
to build its objects.
"""
