//! The search tree: an arena of nodes, each holding the statistics of one position as
//! seen by the player to move there.
//!
//! Storing values from the mover's own point of view (rather than alternating signs by
//! depth) is what the mill games need: after closing a mill the same player moves again
//! to remove a man, so the side to move does not simply alternate.

use kvarn_game::Color;

/// Index of a node in its [`Tree`].
pub type NodeId = u32;

/// What is known about a node's position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeState {
    /// Not yet reached or not yet evaluated.
    Unexpanded,
    /// Evaluated; its children exist.
    Expanded,
    /// The game is over here; `value` is exact.
    Terminal,
    /// Evaluated, but the tree had no room for its children: `value` (the network's)
    /// answers every visit, as a leaf of a search at its memory budget.
    Capped,
}

/// One position in the tree, and the edge that leads to it.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    /// Action index of the edge from the parent (unused at the root).
    pub action: u16,
    /// Children: `first_child .. first_child + children`.
    pub children: u16,
    /// What is known.
    pub state: NodeState,
    /// The player to move here (known once the node has been reached).
    pub side: Color,
    /// First child's index.
    pub first_child: NodeId,
    /// Prior probability of the edge from the parent.
    pub prior: f32,
    /// Network logit of the edge from the parent (Gumbel search works with logits).
    pub logit: f32,
    /// Simulations through this node.
    pub visits: u32,
    /// Sum of win/draw/loss results over those simulations, for `side`.
    pub wdl_sum: [f32; 3],
    /// The network's (or the rules') win/draw/loss here, for `side`.
    pub value: [f32; 3],
}

impl Node {
    fn new(action: u16, prior: f32, logit: f32) -> Node {
        Node {
            action,
            children: 0,
            state: NodeState::Unexpanded,
            side: Color::White,
            first_child: 0,
            prior,
            logit,
            visits: 0,
            wdl_sum: [0.0; 3],
            value: [0.0; 3],
        }
    }

    /// Mean value for `side`: wins − losses, plus `draw` (what a draw is worth to `side`;
    /// 0 without contempt) for each draw; 0 when unvisited.
    pub fn q_for(&self, side: Color, draw: f32) -> f32 {
        if self.visits == 0 {
            return 0.0;
        }
        let [w, d, l] = self.wdl_sum;
        let own = if self.side == side { w - l } else { l - w };
        (own + draw * d) / self.visits as f32
    }

    /// The lower confidence bound of [`Node::q_for`]: the mean less `stdevs` standard
    /// errors. A visit's value is taken to spread as a win/draw/loss drawn with the node's
    /// mean probabilities, which bounds the spread of the soft values the leaves return.
    pub fn lower_bound(&self, side: Color, draw: f32, stdevs: f32) -> f32 {
        if self.visits == 0 {
            return f32::NEG_INFINITY;
        }
        let q = self.q_for(side, draw);
        let [w, d, l] = self.mean_wdl();
        // The second moment is the same for either side: wins and losses both square to 1.
        let variance = (w + l + draw * draw * d - q * q).max(0.0);
        q - stdevs * (variance / self.visits as f32).sqrt()
    }

    /// Mean win/draw/loss for the node's side (the network value when unvisited).
    pub fn mean_wdl(&self) -> [f32; 3] {
        if self.visits == 0 {
            return self.value;
        }
        let n = self.visits as f32;
        [
            self.wdl_sum[0] / n,
            self.wdl_sum[1] / n,
            self.wdl_sum[2] / n,
        ]
    }
}

/// Win/draw/loss seen by the other player.
pub fn flip(wdl: [f32; 3]) -> [f32; 3] {
    [wdl[2], wdl[1], wdl[0]]
}

/// An arena of nodes; node 0 is the root.
#[derive(Debug, Clone)]
pub struct Tree {
    /// The nodes.
    pub nodes: Vec<Node>,
    /// The most nodes the tree may hold: a search at its memory budget goes on through the
    /// nodes it has, the leaves answering with their network values.
    pub max_nodes: usize,
}

/// Bytes a node takes, for turning a memory budget into a count of nodes.
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

impl Tree {
    /// A tree with an unexpanded root.
    pub fn new() -> Tree {
        Tree {
            nodes: vec![Node::new(u16::MAX, 1.0, 0.0)],
            max_nodes: usize::MAX,
        }
    }

    /// Node `id`.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// Node `id`, mutably.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// The ids of `id`'s children.
    pub fn children(&self, id: NodeId) -> std::ops::Range<NodeId> {
        let n = self.node(id);
        n.first_child..n.first_child + NodeId::from(n.children)
    }

    /// Gives `id` one child per `(action, logit)`, priors the softmax of the logits; where
    /// they would take the tree past [`Tree::max_nodes`], marks `id` [`NodeState::Capped`]
    /// with `value` instead.
    pub fn expand(&mut self, id: NodeId, edges: &[(u16, f32)], value: [f32; 3]) {
        if self.nodes.len().saturating_add(edges.len()) > self.max_nodes {
            let node = self.node_mut(id);
            node.state = NodeState::Capped;
            node.value = value;
            return;
        }
        let first = self.nodes.len() as NodeId;
        let max = edges.iter().map(|e| e.1).fold(f32::NEG_INFINITY, f32::max);
        let sum: f32 = edges.iter().map(|e| (e.1 - max).exp()).sum();
        for &(action, logit) in edges {
            let prior = (logit - max).exp() / sum;
            self.nodes.push(Node::new(action, prior, logit));
        }
        let node = self.node_mut(id);
        node.first_child = first;
        node.children = edges.len() as u16;
        node.state = NodeState::Expanded;
        node.value = value;
    }

    /// Adds a result (for `side`) to every node of `path`, each in its own side's view.
    pub fn backup(&mut self, path: &[NodeId], wdl: [f32; 3], side: Color) {
        for &id in path {
            let node = self.node_mut(id);
            let v = if node.side == side { wdl } else { flip(wdl) };
            node.visits += 1;
            for (s, x) in node.wdl_sum.iter_mut().zip(v) {
                *s += x;
            }
        }
    }

    /// The subtree under `child` as a tree of its own (node ids renumbered), for reusing
    /// the search after the move to `child` is played.
    pub fn subtree(&self, child: NodeId) -> Tree {
        let mut nodes = vec![*self.node(child)];
        let mut queue = vec![(child, 0usize)];
        while let Some((old, new)) = queue.pop() {
            let range = self.children(old);
            if range.is_empty() {
                continue;
            }
            let first = nodes.len();
            nodes[new].first_child = first as NodeId;
            for (i, c) in range.enumerate() {
                nodes.push(*self.node(c));
                queue.push((c, first + i));
            }
        }
        nodes[0].action = u16::MAX;
        Tree {
            nodes,
            max_nodes: self.max_nodes,
        }
    }
}
