"""The conversations the MCP server and the web page keep, in memory only, by id (the oldest go first)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Callable

from nl2sparql.errors import InputError
from nl2sparql.modules.conversation import Conversation


class Conversations:
    """At most `keep` conversations; each is asked one question at a time."""

    def __init__(self, keep: int = 100):
        self.keep = keep
        self._items: OrderedDict[str, tuple[Conversation, threading.Lock]] = OrderedDict()
        self._lock = threading.Lock()

    def ask(self, conversation_id: str | None, question: str, program: Callable[[], object]):
        """The answer of `question` in conversation `conversation_id` (a new one when None)."""
        with self._lock:
            if conversation_id is None:
                conversation = Conversation(program())
                self._items[conversation.id] = (conversation, threading.Lock())
                while len(self._items) > self.keep:
                    self._items.popitem(last=False)
            elif conversation_id not in self._items:
                raise InputError(f"unknown conversation_id {conversation_id!r}; leave it out to start a conversation")
            conversation, lock = self._items[conversation_id or conversation.id]
            self._items.move_to_end(conversation.id)
        with lock:
            return conversation.ask(question)

    def __len__(self) -> int:
        return len(self._items)
