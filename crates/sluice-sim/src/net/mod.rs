//! Nodes, links, routing.
