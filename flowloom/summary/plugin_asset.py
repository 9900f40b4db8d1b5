"""TensorBoard plugin assets (`tf.summary` plugin_asset): per-graph objects whose named text
assets a FileWriter writes to `logdir/plugins/<plugin_name>/` when it adds that graph."""

import abc

from flowloom.framework.graph import get_default_graph

# Collection naming the plugins with an asset in a graph; each plugin's asset is the only item
# of the collection this prefix + its plugin name (TF's collection names).
_PLUGIN_ASSET_PREFIX = "__tensorboard_plugin_asset__"


class PluginAsset(abc.ABC):
    """Base class of a plugin's assets: set `plugin_name`, implement `assets()`."""

    plugin_name = None

    @abc.abstractmethod
    def assets(self):
        """A dict of asset file name -> contents (str or bytes)."""
        raise NotImplementedError()


def _single(graph, name):
    items = graph.get_collection(_PLUGIN_ASSET_PREFIX + name)
    if len(items) != 1:
        raise ValueError("Collection for %s had %d items, expected 1"
                         % (_PLUGIN_ASSET_PREFIX + name, len(items)))
    return items[0]


def get_plugin_asset(plugin_asset_cls, graph=None):
    """The graph's one instance of `plugin_asset_cls`, created and recorded on first use.

    Raises:
      ValueError: when the class has no plugin_name, or another class holds that name.
    """
    graph = get_default_graph() if graph is None else graph
    name = plugin_asset_cls.plugin_name
    if not name:
        raise ValueError("Class %s has no plugin_name" % plugin_asset_cls.__name__)
    if graph.get_collection(_PLUGIN_ASSET_PREFIX + name):
        instance = _single(graph, name)
        if not isinstance(instance, plugin_asset_cls):
            raise ValueError("Plugin name collision between classes %s and %s"
                             % (plugin_asset_cls.__name__, type(instance).__name__))
        return instance
    instance = plugin_asset_cls()
    graph.add_to_collection(_PLUGIN_ASSET_PREFIX + name, instance)
    graph.add_to_collection(_PLUGIN_ASSET_PREFIX, name)
    return instance


def get_all_plugin_assets(graph=None):
    """Every plugin asset instance of `graph` (default: the default graph), in creation order."""
    graph = get_default_graph() if graph is None else graph
    return [_single(graph, name) for name in graph.get_collection(_PLUGIN_ASSET_PREFIX)]
