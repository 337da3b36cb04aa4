"""adopt"""
