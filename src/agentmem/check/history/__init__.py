"""check/history"""
