"""tf.contrib.learn.preprocessing: VocabularyProcessor (documents -> padded word-id arrays),
CategoricalVocabulary, ByteProcessor and the tokenizer, as in TF 1.15.

TF saves a VocabularyProcessor with pickle; flowloom never unpickles, so `save` writes a JSON
document and `restore` reads only that (a TF pickle file is refused, naming the reason).
"""

import collections
import json
import re

import numpy as np

TOKENIZER_RE = re.compile(r"[A-Z]{2,}(?![a-z])|[A-Z][a-z]+(?=[A-Z])|[\'\w\-]+", re.UNICODE)
_FORMAT = "flowloom.contrib.learn.VocabularyProcessor/1"


def tokenizer(iterator):
    """Yields the tokens of each document (TF's regular expression)."""
    for value in iterator:
        yield TOKENIZER_RE.findall(value)


class CategoricalVocabulary:
    """Maps categories to ids 1..n (0 is the unknown token), counting frequencies."""

    def __init__(self, unknown_token="<UNK>", support_reverse=True):
        self._unknown_token = unknown_token
        self._mapping = {unknown_token: 0}
        self._support_reverse = support_reverse
        if support_reverse:
            self._reverse_mapping = [unknown_token]
        self._freq = collections.defaultdict(int)
        self._freeze = False

    def __len__(self):
        return len(self._mapping)

    def freeze(self, freeze=True):
        """After freezing, new categories get the unknown id 0."""
        self._freeze = freeze

    def get(self, category):
        """The id of `category`, made if new (unless frozen: then 0)."""
        if category not in self._mapping:
            if self._freeze:
                return 0
            self._mapping[category] = len(self._mapping)
            if self._support_reverse:
                self._reverse_mapping.append(category)
        return self._mapping[category]

    def add(self, category, count=1):
        """Adds `count` to the frequency of `category`."""
        if self.get(category) <= 0:
            return
        self._freq[category] += count

    def trim(self, min_frequency, max_frequency=-1):
        """Keeps the categories seen more than `min_frequency` times (and fewer than
        `max_frequency`), re-numbered 1..n by decreasing frequency."""
        self._freq = sorted(sorted(self._freq.items(),
                                   key=lambda x: (isinstance(x[0], str), x[0])),
                            key=lambda x: x[1], reverse=True)
        self._mapping = {self._unknown_token: 0}
        if self._support_reverse:
            self._reverse_mapping = [self._unknown_token]
        idx = 1
        for category, count in self._freq:
            if max_frequency > 0 and count >= max_frequency:
                continue
            if count <= min_frequency:
                break
            self._mapping[category] = idx
            idx += 1
            if self._support_reverse:
                self._reverse_mapping.append(category)
        self._freq = dict(self._freq[:idx - 1])

    def reverse(self, class_id):
        """The category of `class_id`.

        Raises:
          ValueError: the vocabulary was made without support_reverse.
        """
        if not self._support_reverse:
            raise ValueError("This vocabulary wasn't initialized with support_reverse to "
                             "support reverse() function.")
        return self._reverse_mapping[class_id]


class ByteProcessor:
    """Documents as their UTF-8 bytes, padded/truncated to `max_document_length`."""

    def __init__(self, max_document_length):
        self.max_document_length = max_document_length

    def fit(self, x):
        return self.transform(x)

    def reverse(self, x):
        for data in x:
            document = np.trim_zeros(data.astype(np.int8), trim="b").tobytes()
            try:
                yield document.decode("utf-8")
            except UnicodeDecodeError:
                yield ""

    def transform(self, x):
        for document in x:
            if isinstance(document, str):
                document = document.encode("utf-8")
            buff = np.frombuffer(memoryview(document)[:self.max_document_length],
                                 dtype=np.uint8)
            yield np.pad(buff, (0, self.max_document_length - len(buff)), "constant")


class VocabularyProcessor:
    """Maps documents to int64 arrays of word ids, `max_document_length` long (0-padded).

    Args:
      max_document_length: the length of every output array.
      min_frequency: words seen at most this many times map to 0.
      vocabulary: a CategoricalVocabulary to start from.
      tokenizer_fn: documents -> token lists (default: TF's regular-expression tokenizer).
    """

    def __init__(self, max_document_length, min_frequency=0, vocabulary=None,
                 tokenizer_fn=None):
        self.max_document_length = max_document_length
        self.min_frequency = min_frequency
        self.vocabulary_ = vocabulary if vocabulary else CategoricalVocabulary()
        self._tokenizer = tokenizer_fn if tokenizer_fn else tokenizer

    def fit(self, raw_documents, unused_y=None):
        for tokens in self._tokenizer(raw_documents):
            for token in tokens:
                self.vocabulary_.add(token)
        if self.min_frequency > 0:
            self.vocabulary_.trim(self.min_frequency)
        self.vocabulary_.freeze()
        return self

    def fit_transform(self, raw_documents, unused_y=None):
        self.fit(raw_documents)
        return self.transform(raw_documents)

    def transform(self, raw_documents):
        """Yields one int64 array of word ids per document."""
        for tokens in self._tokenizer(raw_documents):
            word_ids = np.zeros(self.max_document_length, np.int64)
            for idx, token in enumerate(tokens):
                if idx >= self.max_document_length:
                    break
                word_ids[idx] = self.vocabulary_.get(token)
            yield word_ids

    def reverse(self, documents):
        """Yields each array of ids as a space-joined string of its words."""
        for item in documents:
            yield " ".join(self.vocabulary_.reverse(class_id) for class_id in item)

    def save(self, filename):
        """Writes the processor (its settings and vocabulary) to `filename` as JSON.

        Raises:
          NotImplementedError: a custom tokenizer_fn (a function cannot be saved as data).
        """
        from flowloom import gfile

        if self._tokenizer is not tokenizer:
            raise NotImplementedError("VocabularyProcessor.save with a custom tokenizer_fn")
        vocab = self.vocabulary_
        doc = {"format": _FORMAT, "max_document_length": self.max_document_length,
               "min_frequency": self.min_frequency, "unknown_token": vocab._unknown_token,
               "support_reverse": vocab._support_reverse, "frozen": vocab._freeze,
               "mapping": sorted(vocab._mapping.items(), key=lambda kv: kv[1]),
               "freq": list(dict(vocab._freq).items())}
        with gfile.GFile(filename, "w") as f:
            f.write(json.dumps(doc))

    @classmethod
    def restore(cls, filename):
        """Reads a processor written by `save`.

        Raises:
          ValueError: the file is not flowloom's format (TF's pickled processors are refused:
            flowloom does not unpickle files).
        """
        from flowloom import gfile

        with gfile.GFile(filename, "rb") as f:
            data = f.read()
        try:
            doc = json.loads(data.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            doc = None
        if not isinstance(doc, dict) or doc.get("format") != _FORMAT:
            raise ValueError("%s is not a VocabularyProcessor saved by flowloom (TF's pickled "
                             "processors are not read: unpickling can run code)" % filename)
        vocab = CategoricalVocabulary(doc["unknown_token"], doc["support_reverse"])
        vocab._mapping = {str(k): int(v) for k, v in doc["mapping"]}
        if vocab._support_reverse:
            vocab._reverse_mapping = [str(k) for k, _ in doc["mapping"]]
        vocab._freq = collections.defaultdict(int, {str(k): int(v) for k, v in doc["freq"]})
        vocab._freeze = bool(doc["frozen"])
        return cls(int(doc["max_document_length"]), int(doc["min_frequency"]), vocabulary=vocab)
